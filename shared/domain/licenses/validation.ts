/**
 * License validation (docs/rules.md §7): `POST /licenses/actions/validate-key` (no bearer: the key
 * is the credential) and `POST /licenses/<id>/actions/validate` (a bearer who may see the
 * license). Both reach a verdict `{valid, detail, code}` about the license at a time `ts`
 * (answered as the reply's meta with the request's nonce and scope: shared/api/licenses.ts; the
 * `license.validated` event carries the verdict alone); an unknown key, or a key of a license the
 * request's environment cannot see, is `NOT_FOUND` without a license.
 *
 * Checks, in order: SUSPENDED, EXPIRED, PRODUCT_SCOPE_MISMATCH, POLICY_SCOPE_MISMATCH,
 * ENTITLEMENTS_SCOPE_EMPTY, ENTITLEMENTS_MISSING (entitlements/check.ts), FINGERPRINT_SCOPE_REQUIRED (components without a fingerprint), COMPONENTS_SCOPE_REQUIRED
 * (the policy requires them), NO_MACHINE, FINGERPRINT_SCOPE_MISMATCH, COMPONENTS_SCOPE_EMPTY,
 * COMPONENTS_SCOPE_MISMATCH, then VALID.
 *
 * Components are matched against the one machine the fingerprint names: the given fingerprints
 * that are among that machine's components must number at least 1 (MATCH_ANY), 2 (MATCH_TWO),
 * half of the machine's components rounded up (MATCH_MOST), or all of them (MATCH_ALL). A
 * cloned machine (another device reporting the first one's machine fingerprint) thus fails,
 * while an upgraded one (one part replaced) still passes under MATCH_MOST.
 */

import type { Actor, Requester } from '../../auth/actor.ts';
import { authorize, present } from '../../auth/authorize.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { childItems } from '../../store/cascade.ts';
import { recordKey } from '../../store/keys.ts';
import { listCollection } from '../../store/paging.ts';
import { getItem, type Item, toRecord } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { Transaction } from '../../store/transaction.ts';
import { checkEntitlements } from '../entitlements/check.ts';
import { SLOTS } from '../licensing/slots.ts';
import { findMachineItem } from '../machines/machine.ts';
import type { MatchingStrategy } from '../policies/policy.ts';
import { now } from '../rules.ts';
import { licenseDocument } from './document.ts';
import { findLicenseItemByKey, type LicenseRecord, licenseStatus } from './license.ts';

/** What a validation checks besides the license itself; ids of product and policy in any case. */
export interface ValidationScope {
  fingerprint?: string;
  components?: string[];
  product?: string;
  policy?: string;
  /** Entitlement codes the license must hold. */
  entitlements?: string[];
}

/** A license key to validate, with its scope. */
export interface KeyValidation {
  key: string;
  scope?: ValidationScope;
}

/** Every verdict a validation may reach, in the order of the checks (NOT_FOUND: no such key). */
export const VALIDATION_CODES = [
  'NOT_FOUND',
  'SUSPENDED',
  'EXPIRED',
  'PRODUCT_SCOPE_MISMATCH',
  'POLICY_SCOPE_MISMATCH',
  'ENTITLEMENTS_SCOPE_EMPTY',
  'ENTITLEMENTS_MISSING',
  'FINGERPRINT_SCOPE_REQUIRED',
  'COMPONENTS_SCOPE_REQUIRED',
  'NO_MACHINE',
  'FINGERPRINT_SCOPE_MISMATCH',
  'COMPONENTS_SCOPE_EMPTY',
  'COMPONENTS_SCOPE_MISMATCH',
  'VALID',
] as const;

export type ValidationCode = (typeof VALIDATION_CODES)[number];

/** A type, not an interface: it is also the meta of the `license.validated` event. */
export type Verdict = {
  valid: boolean;
  detail: string;
  code: ValidationCode;
};

/** The license validated (null: no license has the key), the verdict and when it was reached. */
export interface Validation {
  license: LicenseRecord | null;
  verdict: Verdict;
  /** ISO 8601, UTC. */
  ts: string;
}

const result = (license: LicenseRecord | null, code: ValidationCode, detail: string): Validation => ({
  license,
  verdict: { valid: code === 'VALID', detail, code },
  ts: now(),
});

/**
 * Every validation of a license that exists emits `license.validated` (to the license's own
 * environment), carrying the verdict in the event's meta, valid or not.
 */
async function announced(validation: Validation, scope: Scope): Promise<Validation> {
  if (!validation.license) return validation;
  const tx = new Transaction();
  await emitEvent(tx, originOf(validation.license, scope), 'license.validated', licenseDocument(validation.license), validation.verdict);
  await tx.commit();
  return validation;
}

/** POST /licenses/actions/validate-key: no credential but the key, inside the request's environment. */
export async function validateKey(requester: Requester, { key, scope }: KeyValidation): Promise<Validation> {
  // A license of an environment this request cannot see does not exist for it.
  const item = await findLicenseItemByKey(requester.scope, key);
  if (!item) {
    return result(null, 'NOT_FOUND', 'license key was not found');
  }
  return announced(await evaluate(requester.scope, toRecord<LicenseRecord>(item), scope ?? {}), requester.scope);
}

/** POST /licenses/<id>/actions/validate: a bearer validates a license it may see. */
export async function validateLicense(actor: Actor, id: string, scope: ValidationScope = {}): Promise<Validation> {
  const item = await authorize(actor, 'licenses', id, 'validate');
  const validation = await announced(await evaluate(actor.scope, toRecord<LicenseRecord>(item), scope), actor.scope);
  return { ...validation, license: validation.license && present(actor, 'licenses', validation.license) };
}

async function evaluate(scope: Scope, license: LicenseRecord, given: ValidationScope): Promise<Validation> {
  const status = licenseStatus(license);
  if (status === 'SUSPENDED') return result(license, 'SUSPENDED', 'is suspended');
  if (status === 'EXPIRED') return result(license, 'EXPIRED', 'is expired');
  if (given.product !== undefined && given.product.toLowerCase() !== license.productId) {
    return result(license, 'PRODUCT_SCOPE_MISMATCH', 'product scope does not match');
  }
  if (given.policy !== undefined && given.policy.toLowerCase() !== license.policyId) {
    return result(license, 'POLICY_SCOPE_MISMATCH', 'policy scope does not match');
  }
  const entitlements = await checkEntitlements(license, given.entitlements);
  if (entitlements) return result(license, entitlements.code, entitlements.detail);
  if (given.components !== undefined && given.fingerprint === undefined) {
    return result(license, 'FINGERPRINT_SCOPE_REQUIRED', 'fingerprint scope is required when components are given');
  }
  const policy = await getItem(recordKey(license.accountId, 'policies', license.policyId));
  if (policy?.requireComponentsScope === true && given.components === undefined) {
    return result(license, 'COMPONENTS_SCOPE_REQUIRED', 'components scope is required');
  }
  if (given.fingerprint === undefined) return result(license, 'VALID', 'is valid');

  const machines = await listCollection(
    scope,
    { type: 'machines', parent: { type: 'licenses', id: license.id, slot: SLOTS.machines.license } },
    { mode: 'cursor', cursor: null, size: 1 },
  );
  if (machines.count === 0) return result(license, 'NO_MACHINE', 'has no associated machine');
  const machine = await findMachineItem(scope, license.id, given.fingerprint);
  if (!machine) {
    return result(license, 'FINGERPRINT_SCOPE_MISMATCH', 'fingerprint is not activated (does not match any associated machines)');
  }
  if (given.components === undefined) return result(license, 'VALID', 'is valid');
  if (given.components.length === 0) return result(license, 'COMPONENTS_SCOPE_EMPTY', 'components scope cannot be empty');

  const strategy = (policy?.componentMatchingStrategy as MatchingStrategy | undefined) ?? 'MATCH_ANY';
  const known = new Set((await componentsOf(scope, machine)).map((component) => component.fingerprint as string));
  const matched = new Set(given.components.filter((fingerprint) => known.has(fingerprint))).size;
  if (known.size === 0 || matched < required(strategy, known.size)) {
    return result(
      license,
      'COMPONENTS_SCOPE_MISMATCH',
      `components do not match the machine (${strategy}: ${matched} of ${known.size} matched)`,
    );
  }
  return result(license, 'VALID', 'is valid');
}

/** How many of the machine's `total` components must be among the given fingerprints. */
export function required(strategy: MatchingStrategy, total: number): number {
  switch (strategy) {
    case 'MATCH_ANY':
      return 1;
    case 'MATCH_TWO':
      return 2;
    case 'MATCH_MOST':
      return Math.ceil(total / 2);
    case 'MATCH_ALL':
      return total;
  }
}

/** The machine's components in every environment the request can see (one partition each). */
async function componentsOf(scope: Scope, machine: Item): Promise<Item[]> {
  const lists = await Promise.all(
    scope.readable.map((environmentId) =>
      childItems(scope.accountId, environmentId, 'components', { type: 'machines', id: machine.id as string }, SLOTS.components.machine),
    ),
  );
  return lists.flat();
}
