/**
 * Moving a license to another policy of its product (docs/rules.md §18.12): `PUT
 * /licenses/<id>/policy`, as Keygen transfers one. The license moves between its policies'
 * collections in one transaction with its key's marker (which names its policy for validations by
 * key) and its event, taking the target's `transferStrategy` for its expiry; then what hangs on it
 * (its machines, their components and processes, its users' attachments) is handed over as
 * shared/licensing/hand-over.ts says: each carries its license's policy, and the fingerprints of machines and
 * components are counted in the target policy's scope instead of the old one's.
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize, present } from '../../auth/authorize.ts';
import { isAdministrator } from '../../auth/policies/policy.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { licenseNamed } from '../../licensing/aliases.ts';
import { fingerprintValue } from '../../licensing/fingerprints.ts';
import { handOver } from '../../licensing/hand-over.ts';
import { slotOf } from '../../licensing/slots.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { dueChanges } from '../../store/due.ts';
import {
  collectionKeys,
  collectionName,
  collectionPartition,
  counterKey,
  environmentMembership,
  fingerprintCountKey,
  type Key,
  uniqueKey,
} from '../../store/keys.ts';
import { getVisibleItem, isUuid, type PlacedItem, type StoredItem, toRecord } from '../../store/records.ts';
import { deleteEmptyCounts, Transaction } from '../../store/transaction.ts';
import { machineDeadlineOf } from '../machines/heartbeat.ts';
import { policyOf } from '../policies/beside.ts';
import { expirationOf, type PolicyRecord, transferStrategyOf } from '../policies/entity.ts';
import { heartbeatOf } from '../policies/heartbeat.ts';
import { now } from '../rules.ts';
import { licenseDocument } from './document.ts';
import { LICENSE_KEY_MARKER, type LicenseRecord, licenseKeyValue } from './entity.ts';
import { after } from './expiry.ts';
import type { LicenseAnswer } from './service.ts';

const POINTER = '/data/relationships/policy';
const policyNotFound = (id: string) => ruleBroken('POLICY_NOT_FOUND', `policy '${id}' was not found`, POINTER);
const notCompatible = (detail: string) => ruleBroken('POLICY_NOT_COMPATIBLE', detail, POINTER);

/** The uniqueness strategies from the loosest to the strictest (Keygen's ranks). */
const STRICTNESS = ['UNIQUE_PER_MACHINE', 'UNIQUE_PER_LICENSE', 'UNIQUE_PER_POLICY', 'UNIQUE_PER_PRODUCT', 'UNIQUE_PER_ACCOUNT'];

/** Why a license under `from` may not move to `to`, as Keygen judges it (the first reason), or nothing. */
function incompatibility(from: PolicyRecord, to: PolicyRecord): string | undefined {
  if (to.productId !== from.productId) return 'cannot change to a policy for another product';
  if ((to.usePool ?? false) !== (from.usePool ?? false)) return 'cannot change from a pooled policy to an unpooled policy (or vice-versa)';
  if ((to.scheme ?? null) !== (from.scheme ?? null)) return 'cannot change to a policy with a different scheme';
  const stricter = (strategy: (policy: PolicyRecord) => string) => STRICTNESS.indexOf(strategy(to)) > STRICTNESS.indexOf(strategy(from));
  if (stricter((policy) => policy.machineUniquenessStrategy ?? 'UNIQUE_PER_LICENSE')) {
    return 'cannot change to a policy with a more strict machine uniqueness strategy';
  }
  if (stricter((policy) => policy.componentUniquenessStrategy)) {
    return 'cannot change to a policy with a more strict component uniqueness strategy';
  }
  return undefined;
}

/**
 * Moves the license to the policy `policyId`. 422 POLICY_NOT_FOUND when the request cannot see that
 * policy, POLICY_NOT_COMPATIBLE for one of another product, or one its keys or fingerprints could
 * not keep to (Keygen's reasons); 403 for a user naming a protected policy; 409 when the license's
 * policy changed meanwhile.
 */
export async function changeLicensePolicy(actor: Actor, idOrKey: string, policyId: string): Promise<LicenseAnswer> {
  const named = await licenseNamed(actor, idOrKey);
  const targetItem = isUuid(policyId) ? await getVisibleItem(actor.scope, 'policies', policyId) : undefined;
  // The license's policy judges the target's protection too (licenses/policy.ts).
  const item = await authorize(actor, 'licenses', named, 'policy.update', { changes: { policy: targetItem } });
  if (!targetItem) throw policyNotFound(policyId);
  const target = toRecord('policies', targetItem);
  // A policy of another product is none the request may name, but for administrators (who are told why).
  if (!isAdministrator(actor.bearer) && target.productId !== item.productId) throw policyNotFound(policyId);
  const current = await policyOf(item);
  if (!current) throw conflict("The license's policy is being removed; retry the request");
  const reason = incompatibility(toRecord('policies', current as StoredItem<PolicyRecord>), target);
  if (reason) throw notCompatible(reason);

  const timestamp = now();
  const moved = item.policyId !== target.id;
  const changes: Record<string, unknown> = { policyId: target.id, updated: timestamp };
  // Only a move starts the expiry afresh: naming the policy it has is no way around renewing.
  if (moved && transferStrategyOf(target) === 'RESET_EXPIRY') {
    const { duration } = expirationOf(target);
    changes.expiry = duration === null ? null : after(Date.parse(timestamp), duration);
  }
  const environmentId = item.environmentId ?? null;
  const index = collectionKeys(slotOf('licenses', 'policy'));
  const joined = collectionPartition(item.accountId, environmentId, collectionName('licenses', { type: 'policies', id: target.id }));
  const changed = conflict("The license's policy changed while this request was made; retry it");
  const tx = new Transaction();
  const written = tx.update(
    item,
    { ...changes, ...(moved ? { [`${index}PK`]: joined } : {}) },
    {
      missing: changed,
      unchanged: { policyId: item.policyId },
      conflict: changed,
    },
  );
  if (moved) {
    const membership = environmentId ? environmentMembership(item.accountId, environmentId) : undefined;
    tx.tally(counterKey(item[`${index}PK`] as string), -1, { membership });
    tx.tally(counterKey(joined), 1, { membership });
    // Its key's marker names its policy for validations by key: only while the marker is the license's.
    const marker: Key = uniqueKey(item.accountId, LICENSE_KEY_MARKER, licenseKeyValue(item.key));
    tx.patch(marker, { policyId: target.id }, {}, { state: { ref: item.PK }, changed });
  }
  tx.requireExists({ PK: targetItem.PK, SK: targetItem.SK }, policyNotFound(policyId));
  const license = toRecord('licenses', written);
  await emitEvent(tx, originOf(license, actor.scope), 'license.policy.updated', licenseDocument(license, targetItem));
  await tx.commit();
  // Every time, moved or not: a hand-over cut short is finished by asking again (only what is stale is written).
  await handOverPolicy(item, target);
  return { license: present(actor, 'licenses', license), policy: targetItem };
}

/** Records of machines and components: what counts their fingerprints. */
const COUNT_KIND: Record<string, 'MACHINE' | 'COMPONENT'> = { machines: 'MACHINE', components: 'COMPONENT' };

/**
 * Hands what hangs on `license` over to `to` (shared/licensing/hand-over.ts): each record carries its license's
 * policy; a machine's or a component's fingerprint leaves the old policy's count for the new
 * one's; a machine the new policy watches (it requires heartbeats) and the sweeper does not yet
 * is put in its index at its deadline.
 */
const handOverPolicy = (license: StoredItem<LicenseRecord>, to: PolicyRecord) =>
  handOver(license, {
    types: ['license-users', 'machines', 'components', 'processes'],
    holds: { policyId: to.id },
    // A record's write touches up to five items (itself, two counts left, two joined).
    chunk: 10,
    stale: (record) => record.policyId !== to.id,
    write: (tx, record, changed) => {
      const from = record.policyId as string;
      const kind = COUNT_KIND[String(record.type)];
      const counted = kind ? recount(tx, record, kind, from, to) : undefined;
      const heartbeat = heartbeatOf(to);
      const watch = record.type === 'machines' && heartbeat.requireHeartbeat && record.DUESK === undefined;
      tx.update(
        record,
        {
          policyId: to.id,
          ...(counted ? { counted } : {}),
          ...(watch ? dueChanges(machineDeadlineOf(record as never, heartbeat)) : {}),
        },
        { missing: changed, unchanged: { policyId: from }, conflict: changed, ...(watch ? { unset: ['DUESK'] } : {}) },
      );
    },
  });

/**
 * Writes into `tx` that `record` (a machine or a component) leaves the counts of its fingerprint
 * in policy `from`'s scope for those in `to`'s (with the share of its own environment when it is
 * not the policy's, as a create counts it: shared/licensing/fingerprints.ts); answers its `counted`
 * as it will be. A record that held none (made before the counts) is left as it is.
 */
function recount(tx: Transaction, record: PlacedItem, kind: 'MACHINE' | 'COMPONENT', from: string, to: PolicyRecord): Key[] | undefined {
  const held = (record.counted as Key[] | undefined) ?? [];
  const { accountId } = record;
  const fingerprint = record.fingerprint as string;
  const left = fingerprintCountKey(accountId, kind, fingerprintValue('policy', from, fingerprint)).PK;
  const leaving = held.filter((key) => key.PK === left);
  if (leaving.length === 0) return undefined;
  const value = fingerprintValue('policy', to.id, fingerprint);
  const environmentId = record.environmentId ?? null;
  const scopeEnvironment = to.environmentId ?? null;
  const membership = (environment: string | null) => (environment ? environmentMembership(accountId, environment) : undefined);
  const joining = [
    { key: fingerprintCountKey(accountId, kind, value), membership: membership(scopeEnvironment) },
    ...(environmentId !== null && environmentId !== scopeEnvironment
      ? [{ key: fingerprintCountKey(accountId, kind, value, environmentId), membership: membership(environmentId) }]
      : []),
  ];
  for (const key of leaving) tx.tally(key, -1);
  for (const { key, membership: envpk } of joining) tx.tally(key, 1, { membership: envpk });
  tx.afterCommit(() => deleteEmptyCounts(leaving));
  return [...held.filter((key) => key.PK !== left), ...joining.map(({ key }) => key)];
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 69,
    name: 'Move a license to another policy, and hand over what hangs on it',
    operation:
      "TransactWriteItems: UpdateItem of the license `SET policyId, updated` (and `expiry` under RESET_EXPIRY) and its policy collection's `GSI2PK` if its `policyId` is the one read, `ADD n` of the two policy counters (−1, +1), UpdateItem of its key's marker `SET policyId` if `ref = :license`, ConditionCheck of the target policy, the event. Then per collection under the license (attachments of users, machines, components, processes), Query 100 at a time and TransactWriteItems of 10: UpdateItem `SET policyId` (a machine's or component's `counted` too, and a machine the new policy watches its `DUEPK`, `DUESK`) if `policyId` is as read, `ADD n` −1 and +1 of its fingerprint's counts in the two policies' scopes, with a ConditionCheck that the license's `policyId` is the new one. A machine's create holds its license's `policyId` as read, a component's or a process's its machine's",
    index: 'table; GSI2, GSI3',
    key: '`PK = A#<acct>#LICENSE#<id>`; `GSI2PK = A#<acct>#E#<env>#LICENSE#<id>#MACHINE` (and the other collections under the license)',
    usedBy: 'licenseRelationships.changePolicy',
    tests: ['http/license-policy'],
  },
];
