/**
 * When a license's expiry is set by its policy's expiration model (docs/rules.md §18.4): at its
 * creation (FROM_CREATION), at its first validation (FROM_FIRST_VALIDATION) or with its first
 * machine (FROM_FIRST_ACTIVATION), each time to the start plus the policy's duration; and how a
 * renewal moves it. A policy without a duration sets no expiry. The later two bases set an expiry
 * only while the license has none, with a condition saying so, so that concurrent first
 * validations or activations set it once. Only a request that may change the license starts its
 * clock: a SHARED environment reads a global license but never writes it (docs/authorization.md),
 * so a global license's clock starts only from the global environment.
 */
import { getRecordItem, type Item, type StoredItem } from '../../store/records.ts';
import { canWrite, type Scope } from '../../store/scope.ts';
import { Transaction } from '../../store/transaction.ts';
import type { Expiration } from '../policies/entity.ts';
import { now } from '../rules.ts';
import { isExpired, type LicenseRecord } from './entity.ts';

/** `seconds` after `from` (epoch ms), as an ISO 8601 time. */
export const after = (from: number, seconds: number) => new Date(from + seconds * 1000).toISOString();

/** A new license's expiry: the one given, else under FROM_CREATION the time of its creation plus the duration. */
export function expiryAtCreation(given: string | null | undefined, expiration: Expiration, created: string): string | null {
  if (given != null) return given;
  if (expiration.expirationBasis !== 'FROM_CREATION' || expiration.duration === null) return null;
  return after(Date.parse(created), expiration.duration);
}

/**
 * The duration `basis` starts now for this license: when it is the policy's basis, with a
 * duration, the license has no expiry yet and `scope` may change it. From a SHARED environment a
 * global license stays unstarted: it is judged and shown as it stands, and nothing is written.
 */
const durationStarting = (
  scope: Scope,
  license: StoredItem<LicenseRecord>,
  expiration: Expiration,
  basis: Expiration['expirationBasis'],
) =>
  expiration.expirationBasis === basis && license.expiry == null && canWrite(scope, license.environmentId) ? expiration.duration : null;

/** Lost the race to set an expiry: another request set it first. */
class ExpiryAlreadySet extends Error {}

/**
 * FROM_FIRST_VALIDATION: the license as it stands once a validation (of any outcome) has started
 * its expiry, before the verdict, so that the verdict and the answer's license show it. Of
 * concurrent first validations one writes; the others read the expiry it wrote.
 */
export async function startExpiryOnValidation(
  scope: Scope,
  license: StoredItem<LicenseRecord>,
  expiration: Expiration,
): Promise<StoredItem<LicenseRecord>> {
  const duration = durationStarting(scope, license, expiration, 'FROM_FIRST_VALIDATION');
  if (duration === null) return license;
  const tx = new Transaction();
  const timestamp = now();
  const started = tx.update(
    license,
    { expiry: after(Date.parse(timestamp), duration), updated: timestamp },
    { missing: new ExpiryAlreadySet(), unset: ['expiry'] },
  );
  try {
    await tx.commit();
    return started;
  } catch (error) {
    if (!(error instanceof ExpiryAlreadySet)) throw error;
    // Set by a concurrent validation (or removed meanwhile: then judged as it was read).
    return (await getRecordItem(license.accountId, 'licenses', license.id)) ?? license;
  }
}

/**
 * The machine-create transaction's hold on its license: it must still exist with the owner and
 * the policy read (which the machine inherits: else `changed`, and the create reads the license again), and under
 * FROM_FIRST_ACTIVATION a license without an expiry gets one with this machine (not a global
 * license's machine activated inside a SHARED environment: see durationStarting). The write is
 * conditional on the expiry being still unset: of concurrent first activations one sets it and
 * the others read the license again (`changed`), finding the expiry set.
 */
export function holdLicenseForActivation(
  tx: Transaction,
  scope: Scope,
  license: StoredItem<LicenseRecord>,
  expiration: Expiration,
  missing: Error,
  changed: Error,
): string | undefined {
  // What the machine inherits of its license: its owner and its policy, as read.
  const inherited = { ownerId: license.ownerId ?? null, policyId: license.policyId };
  const duration = durationStarting(scope, license, expiration, 'FROM_FIRST_ACTIVATION');
  if (duration === null) {
    // Its key held too: a license gone meanwhile has no owner either, which the condition would take for its own.
    tx.requireState({ PK: license.PK, SK: license.SK }, { PK: license.PK, ...inherited }, changed);
    return undefined;
  }
  const timestamp = now();
  const expiry = after(Date.parse(timestamp), duration);
  tx.update(license, { expiry, updated: timestamp }, { missing, unset: ['expiry'], unchanged: inherited, conflict: changed });
  return expiry;
}

/**
 * Takes back the expiry an activation started (`holdLicenseForActivation`) when the activation is
 * withdrawn: the license is as if it never had that machine. Only while the expiry is still the
 * one started (a renewal or a PATCH since then stands).
 */
export async function withdrawStartedExpiry(license: Item, expiry: string): Promise<void> {
  const tx = new Transaction();
  tx.patch({ PK: license.PK, SK: license.SK }, { expiry: null }, {}, { state: { expiry }, changed: new ExpiryChanged() });
  await tx.commit().catch((error: unknown) => {
    if (!(error instanceof ExpiryChanged)) throw error;
  });
}

class ExpiryChanged extends Error {}

/**
 * A renewal's new expiry: the duration added to the renewal basis's start — FROM_EXPIRY the
 * expiry (now when there is none), FROM_NOW now, FROM_NOW_IF_EXPIRED now once the license has
 * expired (or has no expiry), else its expiry.
 */
export function renewedExpiry(license: { expiry?: string | null }, expiration: Expiration & { duration: number }, at = Date.now()): string {
  const expiry = license.expiry != null ? Date.parse(license.expiry) : null;
  const start = {
    FROM_EXPIRY: expiry ?? at,
    FROM_NOW: at,
    FROM_NOW_IF_EXPIRED: expiry === null || isExpired(license.expiry, at) ? at : expiry,
  }[expiration.renewalBasis];
  return after(start, expiration.duration);
}
