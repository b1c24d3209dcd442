/**
 * Records a path names by id or by an alias, as Keygen names them (docs/rules.md §11.2): a license
 * by its key, a machine by its fingerprint. A value shaped like a UUID names a record by id
 * first; one that names no record the bearer sees by id is then tried as the alias. What is
 * found is what the bearer sees, never more: each lookup keeps to the request's scope and the
 * bearer's reach, and the caller still asks `authorize` for the action.
 */
import type { Actor } from '../auth/actor.ts';
import { sees } from '../auth/authorize.ts';
import type { PolicyType } from '../auth/policies/index.ts';
import { Conflict } from '../errors.ts';
import { findLicenseItemByKey, type LicenseRecord } from '../resources/licenses/entity.ts';
import { findMachineItem, type MachineRecord } from '../resources/machines/entity.ts';
import { machinesWithFingerprint } from '../resources/machines/fingerprints.ts';
import { RecordNotFound } from '../store/errors.ts';
import type { RecordType } from '../store/keys.ts';
import type { RecordOf } from '../store/record-types.ts';
import { getVisibleItem, type StoredItem } from '../store/records.ts';

/** The record `id` names by id, if the bearer sees it. */
async function seenById<K extends PolicyType & RecordType>(
  actor: Actor,
  type: K,
  id: string,
): Promise<StoredItem<RecordOf<K>> | undefined> {
  const item = await getVisibleItem(actor.scope, type, id);
  return item && (await sees(actor, type, item)) ? item : undefined;
}

/** Those of `items` the bearer sees. */
async function seen<K extends PolicyType & RecordType>(
  actor: Actor,
  type: K,
  items: (StoredItem<RecordOf<K>> | undefined)[],
): Promise<StoredItem<RecordOf<K>>[]> {
  const visible = await Promise.all(items.map(async (item) => (item && (await sees(actor, type, item)) ? item : undefined)));
  return visible.filter((item) => item !== undefined);
}

/** The license named by its id or its key; 404 when the bearer sees none. */
export async function licenseNamed(actor: Actor, idOrKey: string): Promise<StoredItem<LicenseRecord>> {
  const byId = await seenById(actor, 'licenses', idOrKey);
  if (byId) return byId;
  const [byKey] = await seen(actor, 'licenses', [await findLicenseItemByKey(actor.scope, idOrKey)]);
  if (byKey) return byKey;
  throw new RecordNotFound('licenses', idOrKey);
}

/**
 * The machine named by its id or its fingerprint; 404 when the bearer sees none. A license
 * bearer names its own machines (a fingerprint is unique within a license); any other bearer
 * names one among all the machines it sees, and a fingerprint that several of them hold (on
 * different licenses) names none of them (404): their ids tell them apart.
 */
export async function machineNamed(actor: Actor, idOrFingerprint: string): Promise<StoredItem<MachineRecord>> {
  const byId = await seenById(actor, 'machines', idOrFingerprint);
  if (byId) return byId;
  const { bearer, scope } = actor;
  const holders =
    bearer.kind === 'license'
      ? [await findMachineItem(scope, bearer.id, idOrFingerprint)]
      : await machinesWithFingerprint(scope, idOrFingerprint);
  const visible = await seen(actor, 'machines', holders);
  if (visible.length === 1 && visible[0]) return visible[0];
  throw new RecordNotFound('machines', idOrFingerprint);
}

/**
 * An update whose path may name its record by an alias reads `data.id` from its body: if sent,
 * it must be the id of the record found (docs/rules.md §1.2), else 409 `ID_MISMATCH`.
 */
export function requireNamedId(item: StoredItem, namedId: string | undefined): void {
  if (namedId === undefined || namedId.toLowerCase() === item.id) return;
  throw new Conflict(`data.id does not match the id of the ${String(item.type).replace(/s$/, '')} (${item.id})`, 'ID_MISMATCH', {
    pointer: '/data/id',
  });
}
