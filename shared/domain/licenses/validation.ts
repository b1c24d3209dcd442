/**
 * License validation (docs/rules.md §7): `POST /licenses/actions/validate-key` (no bearer: the key
 * is the credential) and `POST /licenses/<id>/actions/validate` (a bearer who may see the
 * license). Both answer 200 with the license and `meta: {valid, detail, code}`; an unknown key,
 * or a key of a license the request's environment cannot see, is `NOT_FOUND` with `data: null`.
 *
 * Checks, in order: SUSPENDED, EXPIRED, PRODUCT_SCOPE_MISMATCH, POLICY_SCOPE_MISMATCH,
 * FINGERPRINT_SCOPE_REQUIRED (components without a fingerprint), COMPONENTS_SCOPE_REQUIRED
 * (the policy requires them), NO_MACHINE, FINGERPRINT_SCOPE_MISMATCH, COMPONENTS_SCOPE_EMPTY,
 * COMPONENTS_SCOPE_MISMATCH, then VALID.
 *
 * Components are matched against the one machine the fingerprint names: the given fingerprints
 * that are among that machine's components must number at least 1 (MATCH_ANY), 2 (MATCH_TWO),
 * half of the machine's components rounded up (MATCH_MOST), or all of them (MATCH_ALL). A
 * cloned machine (another device reporting the first one's machine fingerprint) thus fails,
 * while an upgraded one (one part replaced) still passes under MATCH_MOST.
 */
import { emitEvent, originOf } from '../../events/emit.ts';
import { Transaction } from '../../store/transaction.ts';
import { licenseDocument } from './document.ts';
import * as z from 'zod/mini';
import { metaDocument, nonBlank, parseBody } from '../../http/body.ts';
import type { RequestContext } from '../../http/pipeline.ts';
import { childItems } from '../../store/cascade.ts';
import { recordKey } from '../../store/keys.ts';
import { listCollection } from '../../store/paging.ts';
import { getItem, toRecord, type Item } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { authorize, present } from '../../auth/authorize.ts';
import type { Actor } from '../../auth/actor.ts';
import { SLOTS } from '../licensing/slots.ts';
import { findMachineItem } from '../machines/machine.ts';
import type { MatchingStrategy } from '../policies/policy.ts';
import { findLicenseItemByKey, licenseStatus, type LicenseRecord } from './license.ts';

const scopeSchema = z.strictObject({
  fingerprint: z.optional(nonBlank()),
  components: z.optional(z.array(z.string())),
  product: z.optional(z.string()),
  policy: z.optional(z.string()),
});

const validateKeyBody = metaDocument({ key: nonBlank(), scope: z.optional(scopeSchema) });
const validateBody = z.union([z.undefined(), metaDocument({ scope: z.optional(scopeSchema) })]);

type ValidationScope = z.infer<typeof scopeSchema>;

export interface Validation {
  license: LicenseRecord | null;
  meta: { valid: boolean; detail: string; code: string };
}

const result = (license: LicenseRecord | null, code: string, detail: string): Validation => ({
  license,
  meta: { valid: code === 'VALID', detail, code },
});

/**
 * Every validation of a license that exists emits `license.validated` (to the license's own
 * environment), carrying the outcome in the event's meta, valid or not.
 */
async function announced(validation: Validation, scope: Scope): Promise<Validation> {
  if (!validation.license) return validation;
  const tx = new Transaction();
  await emitEvent(tx, originOf(validation.license, scope), 'license.validated', licenseDocument(validation.license), validation.meta);
  await tx.commit();
  return validation;
}

export async function validateKey(ctx: RequestContext): Promise<Validation> {
  const { meta } = parseBody(ctx.body, validateKeyBody);
  // A license of an environment this request cannot see does not exist for it.
  const item = await findLicenseItemByKey(ctx.scope, meta.key);
  if (!item) {
    return result(null, 'NOT_FOUND', 'license key was not found');
  }
  return announced(await evaluate(ctx.scope, toRecord<LicenseRecord>(item), meta.scope ?? {}), ctx.scope);
}

export async function validateLicense(ctx: Actor, id: string): Promise<Validation> {
  const item = await authorize(ctx, 'licenses', id, 'validate');
  const body = 'absent' in ctx.body ? undefined : parseBody(ctx.body, validateBody);
  const validation = await announced(await evaluate(ctx.scope, toRecord<LicenseRecord>(item), body?.meta.scope ?? {}), ctx.scope);
  return { ...validation, license: validation.license && present(ctx, 'licenses', validation.license) };
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
    return result(license, 'COMPONENTS_SCOPE_MISMATCH', `components do not match the machine (${strategy}: ${matched} of ${known.size} matched)`);
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
