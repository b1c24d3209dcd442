/**
 * Usage metering (docs/rules.md §18.6), as Keygen meters it: a license counts its `uses`, which
 * the usage actions raise, lower and reset, from 0 up to its limit (`maxUses`: its own, else its
 * policy's; null: unlimited). A change is one write that adds to the count on condition that the
 * sum stays within bounds, so the bound holds under concurrent changes without a lock and
 * without reading the count first; the answer and the event show the license with the count
 * read plus the change (exact unless a concurrent change landed between, which the count itself
 * never loses).
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize, present } from '../../auth/authorize.ts';
import { conflict, InputInvalid, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { licenseNamed } from '../../licensing/aliases.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { getRecordItem, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { policyOf } from '../policies/beside.ts';
import { LIMIT_MAX } from '../policies/rules.ts';
import { attributePointer, now } from '../rules.ts';
import { licenseDocument } from './document.ts';
import { type LicenseRecord, maxUsesOf } from './entity.ts';
import type { LicenseAnswer } from './service.ts';

export type UsesAction = 'increment' | 'decrement' | 'reset';

const EVENTS = {
  increment: 'license.usage.incremented',
  decrement: 'license.usage.decremented',
  reset: 'license.usage.reset',
} as const;

/** Concurrent changes a request outlives before it answers 409: each one that beat it moved the count. */
const ATTEMPTS = 5;

/** The write's bound failed, or the license went: read again to say which. */
class UsesMoved extends Error {}

/** Keygen's 400 for a count beyond what a license can hold, at the meta value that made it. */
const tooLarge = (action: UsesAction) => new InputInvalid('PARAMETER_INVALID', 'integer is too large', { pointer: `/meta/${action}` });

/** Why `uses` cannot become `next` under `limit` (null: unlimited), or undefined when it can. */
function refusal(next: number, limit: number | null, action: UsesAction): Error | undefined {
  if (next < 0) return ruleBroken('USES_INVALID', 'must be greater than or equal to 0', attributePointer('uses'));
  if (limit !== null && next > limit) {
    return ruleBroken('USES_LIMIT_EXCEEDED', `usage exceeds maximum allowed by current policy (${limit})`, attributePointer('uses'));
  }
  if (next > LIMIT_MAX) return tooLarge(action);
  return undefined;
}

/**
 * POST /licenses/<id or key>/actions/increment-usage (`by` from meta.increment, default 1),
 * decrement-usage (meta.decrement) and reset-usage: the license with its count changed, and the
 * action's event, in one transaction.
 */
export async function changeUses(actor: Actor, idOrKey: string, action: UsesAction, by = 1): Promise<LicenseAnswer> {
  let item: StoredItem<LicenseRecord> = await authorize(actor, 'licenses', await licenseNamed(actor, idOrKey), `usage.${action}`);
  const delta = action === 'decrement' ? -by : by;
  for (let attempt = 1; ; attempt++) {
    const policy = await policyOf(item);
    const limit = maxUsesOf(item, policy);
    const read = item.uses ?? 0;
    const next = action === 'reset' ? 0 : read + delta;
    const refused = refusal(next, limit, action);
    if (refused) throw refused;
    if (attempt > ATTEMPTS) throw conflict('The license changed while this request was made; retry it');
    const tx = new Transaction();
    const changes = { updated: now() };
    if (action === 'reset') tx.update(item, { ...changes, uses: 0 }, { missing: new RecordNotFound('licenses', item.id) });
    else tx.increment(item, 'uses', delta, { atLeast: 0, atMost: Math.min(limit ?? LIMIT_MAX, LIMIT_MAX) }, changes, new UsesMoved());
    const updated: LicenseRecord = { ...toRecord('licenses', item), ...changes, uses: next };
    await emitEvent(tx, originOf(updated, actor.scope), EVENTS[action], licenseDocument(updated, policy));
    try {
      await tx.commit();
      return { license: present(actor, 'licenses', updated), policy };
    } catch (error) {
      if (!(error instanceof UsesMoved)) throw error;
      const current = await getRecordItem(item.accountId, 'licenses', item.id);
      if (!current) throw new RecordNotFound('licenses', item.id);
      // Judged again on the count as it now stands: over the bound, refused; else another try.
      item = current;
    }
  }
}
