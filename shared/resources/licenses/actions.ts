/**
 * A license's lifecycle actions (docs/rules.md §18.5): suspend, reinstate, renew and revoke, each
 * decided by the license policy (shared/resources/licenses/policy.ts) and announced by an event of
 * its own. Each change is written on condition that the license still stands as it was read, so
 * that of two concurrent actions from the same state one succeeds and the other is judged
 * against what the first did (a second suspend is 422 LICENSE_ALREADY_SUSPENDED).
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize, present } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { licenseNamed } from '../../licensing/aliases.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { getRecordItem, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { policyOf } from '../policies/beside.ts';
import { checkInOf } from '../policies/check-in.ts';
import { expirationOf } from '../policies/entity.ts';
import { attributePointer, now } from '../rules.ts';
import { licenseDocument } from './document.ts';
import type { LicenseRecord } from './entity.ts';
import { renewedExpiry } from './expiry.ts';
import { type LicenseAnswer, removeLicense } from './service.ts';

type StandingEvent = 'license.suspended' | 'license.reinstated';

const alreadySuspended = () => ruleBroken('LICENSE_ALREADY_SUSPENDED', 'license is already suspended', attributePointer('suspended'));
const notSuspended = () => ruleBroken('LICENSE_NOT_SUSPENDED', 'license is not suspended', attributePointer('suspended'));

/** The license changed between read and write: read again to say how. */
class StandingChanged extends Error {}

/**
 * Sets `suspended` to `to` on a license that is not so already (else `refusal()`), on condition
 * that it still holds the value read: a license suspended, reinstated or deleted meanwhile is
 * read again and judged as it now stands.
 */
async function setSuspended(
  actor: Actor,
  item: StoredItem<LicenseRecord>,
  to: boolean,
  event: StandingEvent,
  refusal: () => Error,
): Promise<LicenseAnswer> {
  if (item.suspended === to) throw refusal();
  const policy = await policyOf(item);
  const tx = new Transaction();
  const updated = toRecord(
    'licenses',
    tx.update(item, { suspended: to, updated: now() }, { missing: new StandingChanged(), unchanged: { suspended: item.suspended } }),
  );
  await emitEvent(tx, originOf(updated, actor.scope), event, licenseDocument(updated, policy));
  try {
    await tx.commit();
  } catch (error) {
    if (!(error instanceof StandingChanged)) throw error;
    const current = await getRecordItem(item.accountId, 'licenses', item.id);
    if (!current) throw new RecordNotFound('licenses', item.id);
    throw current.suspended === to ? refusal() : conflict('The license changed while this request was made; retry it');
  }
  return { license: present(actor, 'licenses', updated), policy };
}

/** POST /licenses/<id>/actions/suspend: 422 LICENSE_ALREADY_SUSPENDED when it is. */
export async function suspendLicense(actor: Actor, id: string): Promise<LicenseAnswer> {
  const item = await authorize(actor, 'licenses', id, 'suspend');
  return setSuspended(actor, item, true, 'license.suspended', alreadySuspended);
}

/** POST /licenses/<id>/actions/reinstate: 422 LICENSE_NOT_SUSPENDED when it is not. */
export async function reinstateLicense(actor: Actor, id: string): Promise<LicenseAnswer> {
  const item = await authorize(actor, 'licenses', id, 'reinstate');
  return setSuspended(actor, item, false, 'license.reinstated', notSuspended);
}

/**
 * POST /licenses/<id>/actions/renew: the expiry moved by the policy's duration from its renewal
 * basis (expiry.ts). 422 LICENSE_NOT_RENEWABLE under a policy without a duration; 409 when the
 * expiry changed meanwhile (a concurrent renewal: retrying renews again, from the new expiry).
 */
export async function renewLicense(actor: Actor, id: string): Promise<LicenseAnswer> {
  const item = await authorize(actor, 'licenses', id, 'renew');
  const license = toRecord('licenses', item);
  const policy = await policyOf(license);
  const expiration = expirationOf(policy);
  const { duration } = expiration;
  if (duration === null) {
    throw ruleBroken('LICENSE_NOT_RENEWABLE', 'license cannot be renewed: its policy has no duration', '/data/relationships/policy');
  }
  const changed = conflict('The license changed while this request was made; retry it');
  const read = item.expiry == null ? { unset: ['expiry'] } : { unchanged: { expiry: item.expiry } };
  const tx = new Transaction();
  const updated = toRecord(
    'licenses',
    tx.update(
      item,
      { expiry: renewedExpiry(license, { ...expiration, duration }), updated: now() },
      { missing: new RecordNotFound('licenses', id), conflict: changed, ...read },
    ),
  );
  await emitEvent(tx, originOf(updated, actor.scope), 'license.renewed', licenseDocument(updated, policy));
  await tx.commit();
  return { license: present(actor, 'licenses', updated), policy };
}

/**
 * POST /licenses/<id or key>/actions/check-in (docs/rules.md §18.8): the license checked in now,
 * which moves its next check-in on by its policy's period. 422 CHECK_IN_NOT_REQUIRED under a
 * policy that does not require check-ins. Concurrent check-ins each set the time they ran: the
 * last written stands, which is the latest but for clocks a few milliseconds apart.
 */
export async function checkInLicense(actor: Actor, idOrKey: string): Promise<LicenseAnswer> {
  const item = await authorize(actor, 'licenses', await licenseNamed(actor, idOrKey), 'check-in');
  const policy = await policyOf(item);
  if (!checkInOf(policy).requireCheckIn) {
    throw ruleBroken('CHECK_IN_NOT_REQUIRED', 'cannot be checked in because the policy does not require it', '/data/relationships/policy');
  }
  const timestamp = now();
  const tx = new Transaction();
  const updated = toRecord(
    'licenses',
    tx.update(item, { lastCheckIn: timestamp, updated: timestamp }, { missing: new RecordNotFound('licenses', item.id) }),
  );
  await emitEvent(tx, originOf(updated, actor.scope), 'license.checked-in', licenseDocument(updated, policy));
  await tx.commit();
  return { license: present(actor, 'licenses', updated), policy };
}

/**
 * DELETE /licenses/<id>/actions/revoke: removes the license exactly as DELETE /licenses/<id>
 * does (machines, components, tokens), announced as `license.revoked` alone, as Keygen does.
 */
export async function revokeLicense(actor: Actor, id: string): Promise<void> {
  await removeLicense(actor, await authorize(actor, 'licenses', id, 'revoke'), 'license.revoked');
}
