/** The licenses' operations: what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ, VALIDATION } from '../../access.ts';
import { aliasedUpdateDocument, metaDocument, nonBlank, relationship, resourceDocument, userOrNone } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import type { Reply } from '../../http/documents.ts';
import { uuidFilter } from '../../http/query.ts';
import { uniqueKey } from '../../store/keys.ts';
import { machineFilters } from '../machines/operations.ts';
import { LIMIT_MAX } from '../policies/rules.ts';
import { metadataSchema } from '../rules.ts';
import { tokenRequestBody } from '../tokens/operations.ts';
import { licenseDocument } from './document.ts';
import { isPossibleKey, LICENSE_KEY_MARKER, licenseKeyValue } from './entity.ts';
import { readsBefore } from './reads-before.ts';
import { answerMeta, VALIDATION_CODES, type Validation, type ValidationScope } from './validation.ts';

const metadata = metadataSchema();

/** The attributes a create sets and an update may change. */
const mutable = {
  name: z.nullish(z.string()),
  protected: z.optional(z.boolean()),
  suspended: z.optional(z.boolean()),
  expiry: z.nullish(z.string()),
  maxUses: z.nullish(z.int().check(z.describe("The license's own limit of uses, 0 to 2147483647, over its policy's; null: its policy's"))),
  maxUsers: z.nullish(
    z
      .int()
      .check(z.describe("The license's own limit of users (its owner included), 0 to 2147483647, over its policy's; null: its policy's")),
  ),
  lastCheckIn: z.nullish(
    z.string().check(z.describe('When the license last checked in, ISO 8601, not in the future: for imports and corrections')),
  ),
  metadata: z.optional(metadata),
};

/** The filters of every list of licenses. */
const filters = z.object({ owner: uuidFilter(), user: uuidFilter(), policy: uuidFilter(), product: uuidFilter() });

/** What a validation is asked to check besides the license itself (docs/rules.md §19.1, §23.3). */
const validationScope = z.strictObject({
  environment: z.nullish(z.string().check(z.describe("The license's environment, by id or code; null: the global environment"))),
  user: z.optional(z.string().check(z.describe("One of the license's users (its owner or a user attached), by id or e-mail"))),
  machine: z.optional(z.string().check(z.describe('The id of a machine of the license'))),
  fingerprints: z.optional(z.array(nonBlank()).check(z.maxLength(100), z.describe('At least one must be a machine of the license'))),
  fingerprint: z.optional(nonBlank()),
  components: z.optional(z.array(z.string())),
  product: z.optional(z.string()),
  policy: z.optional(z.string()),
  entitlements: z.optional(
    z
      .array(z.string())
      .check(z.maxLength(100, 'names at most 100 entitlement codes'), z.describe('Entitlement codes the license must hold')),
  ),
});

/**
 * A number the client chooses afresh for each validation and finds again in the signed answer
 * (docs/rules.md §19.4). A JSON integer, within JavaScript's exact range so that the echo is exact.
 */
const nonce = z
  .int()
  .check(z.describe('An integer the client chooses afresh for this validation; the answer echoes it (docs/rules.md §19.4)'));

/**
 * The most a request's scope may weigh as JSON: it is echoed in the answer and in the
 * validation's webhook events, records of at most 400 KB beside the license's own document.
 */
const SCOPE_MAX_BYTES = 64 * 1024;
const requestedScope = validationScope.check(
  z.refine((scope) => Buffer.byteLength(JSON.stringify(scope)) <= SCOPE_MAX_BYTES, {
    message: `is too large (at most ${SCOPE_MAX_BYTES / 1024} KB as JSON)`,
  }),
  z.describe(`What the verdict must hold for besides the license: at most ${SCOPE_MAX_BYTES / 1024} KB as JSON`),
);

/** What both validations read of `meta` besides the key. */
const validationRequest = { nonce: z.optional(nonce), scope: z.optional(requestedScope) };

/**
 * The verdict both validations answer with, beside the license: when it was reached, and the
 * request's nonce and scope, so that a client holding the account's public key can tell a fresh
 * answer to its own request from a replayed one.
 */
const validationMeta = z.strictObject({
  ts: z.iso.datetime().check(z.describe('When the verdict was reached: ISO 8601, UTC')),
  valid: z.boolean(),
  detail: z.string(),
  code: z.enum(VALIDATION_CODES),
  nonce: z.optional(nonce.check(z.describe("The request's meta.nonce, only when it sent one"))),
  scope: z.optional(validationScope.check(z.describe("The request's meta.scope as sent, only when it sent one"))),
});

export const licenses = {
  create: declare({
    operation: 'licenses.create',
    authorizes: { type: 'licenses', action: 'create' },
    method: 'POST',
    path: `${ACCOUNT}/licenses`,
    access: EMIT,
    summary: 'Create a license under a policy',
    auth: 'bearer',
    body: resourceDocument(
      'licenses',
      { key: z.optional(nonBlank()), ...mutable },
      { policy: relationship('policies'), owner: z.optional(relationship('users')) },
    ),
    answers: { 201: { resource: 'licenses' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'licenses.list',
    authorizes: { type: 'licenses', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/licenses`,
    access: READ,
    summary: 'List licenses',
    auth: 'bearer',
    paged: true,
    query: filters,
    answers: { 200: { list: 'licenses' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'licenses.retrieve',
    authorizes: { type: 'licenses', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}`,
    access: READ,
    summary: 'Retrieve a license',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    faults: [403],
  }),
  update: declare({
    operation: 'licenses.update',
    authorizes: { type: 'licenses', action: 'update', record: true },
    method: 'PATCH',
    path: `${ACCOUNT}/licenses/{id}`,
    access: EMIT,
    summary: 'Update a license',
    auth: 'bearer',
    params: ['id'],
    // The path may name the license by its key: `data.id` is compared with the one found.
    pathByAlias: true,
    body: aliasedUpdateDocument('licenses', mutable),
    answers: { 200: { resource: 'licenses' } },
    faults: [403, 409, 422],
  }),
  remove: declare({
    operation: 'licenses.delete',
    authorizes: { type: 'licenses', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/licenses/{id}`,
    access: EMIT,
    summary: 'Delete a license with its machines, components and tokens',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    // 409: a token was generated for the license while it was being deleted.
    faults: [403, 409],
  }),
  tokensGenerate: declare({
    operation: 'licenses.tokens.generate',
    authorizes: { type: 'licenses', action: 'tokens.generate', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/tokens`,
    access: EMIT,
    summary: 'Generate a license token',
    auth: 'bearer',
    params: ['id'],
    body: tokenRequestBody,
    // 200, not 201, like environment tokens (docs/rules.md §14.3); the value is shown only here.
    answers: { 200: { resource: 'tokens' } },
    faults: [403, 422],
  }),
  validate: declare({
    operation: 'licenses.validate',
    authorizes: { type: 'licenses', action: 'validate', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/validate`,
    access: EMIT,
    throttle: VALIDATION,
    summary: 'Validate a license the bearer may see',
    auth: 'bearer',
    params: ['id'],
    body: z.optional(metaDocument(validationRequest)),
    answers: { 200: { resource: 'licenses', meta: validationMeta } },
    faults: [403],
  }),
  validateKey: declare({
    operation: 'licenses.validateKey',
    method: 'POST',
    path: `${ACCOUNT}/licenses/actions/validate-key`,
    access: EMIT,
    throttle: VALIDATION,
    summary: 'Validate a license key (no bearer: the key is the credential)',
    auth: 'none',
    limitPerAddress: true,
    body: metaDocument({ key: nonBlank(), ...validationRequest }),
    // The key's marker names the license and carries its policy and owner (data model, pattern 54);
    // with it, what the container's last validation of this key with this scope read after it.
    readAhead: (accountId, json) => {
      const meta = (json as { meta?: { key?: unknown; scope?: unknown } } | null)?.meta;
      const key = meta?.key;
      if (typeof key !== 'string' || !isPossibleKey(key)) return [];
      const marker = uniqueKey(accountId, LICENSE_KEY_MARKER, licenseKeyValue(key));
      return [marker, ...readsBefore(marker.PK, meta?.scope)];
    },
    // An unknown key is a verdict too (NOT_FOUND), with data null.
    answers: { 200: { resource: 'licenses', nullable: true, meta: validationMeta } },
  }),
  machines: declare({
    operation: 'licenses.machines',
    authorizes: { type: 'licenses', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/machines`,
    access: READ,
    summary: "List a license's machines",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    query: machineFilters,
    answers: { 200: { list: 'machines' } },
    faults: [403],
  }),
  owner: declare({
    operation: 'licenses.owner',
    authorizes: { type: 'licenses', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/owner`,
    access: READ,
    summary: "Retrieve a license's owner (data null without one)",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'users', nullable: true } },
    faults: [403],
  }),
  /** GET /users/<id>/licenses: served by the licenses, declared with them. */
  ofUser: declare({
    operation: 'users.licenses',
    authorizes: { type: 'users', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/users/{id}/licenses`,
    access: READ,
    summary: "List a user's licenses",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    query: filters,
    answers: { 200: { list: 'licenses' } },
    faults: [403],
  }),
};

/** What a validation request asked, echoed in its answer. */
export interface ValidationEcho {
  nonce?: number;
  scope?: ValidationScope;
}

/**
 * The answer of both validations: 200 with the license (null for an unknown key) and as meta the
 * verdict with its time, and the nonce and scope when the request sent them.
 */
export const validationReply = ({ license, policy, verdict, ts }: Validation, { nonce, scope }: ValidationEcho = {}): Reply => ({
  status: 200,
  body: {
    data: license && licenseDocument(license, policy),
    meta: answerMeta({ verdict, ts }, { nonce, scope }),
  },
});

/** A license's lifecycle actions (docs/rules.md §18.5): what each reads of a request, and what it answers. */

export const licenseActions = {
  suspend: declare({
    operation: 'licenses.suspend',
    authorizes: { type: 'licenses', action: 'suspend', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/suspend`,
    access: EMIT,
    summary: 'Suspend a license: it fails validation and may not authenticate until reinstated',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    // 422 LICENSE_ALREADY_SUSPENDED; 409: the license changed meanwhile.
    faults: [403, 409, 422],
  }),
  reinstate: declare({
    operation: 'licenses.reinstate',
    authorizes: { type: 'licenses', action: 'reinstate', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/reinstate`,
    access: EMIT,
    summary: 'Reinstate a suspended license',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    // 422 LICENSE_NOT_SUSPENDED; 409: the license changed meanwhile.
    faults: [403, 409, 422],
  }),
  renew: declare({
    operation: 'licenses.renew',
    authorizes: { type: 'licenses', action: 'renew', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/renew`,
    access: EMIT,
    summary: "Renew a license: its expiry moved by its policy's duration from the policy's renewal basis",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    // 422 LICENSE_NOT_RENEWABLE (a policy without a duration); 409: the expiry changed meanwhile.
    faults: [403, 409, 422],
  }),
  checkIn: declare({
    operation: 'licenses.checkIn',
    authorizes: { type: 'licenses', action: 'check-in', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/check-in`,
    access: EMIT,
    summary: 'Check a license in: its next check-in moves on by its policy’s period (the license named by id or key)',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    // 422 CHECK_IN_NOT_REQUIRED: the policy does not require check-ins.
    faults: [403, 422],
  }),
  revoke: declare({
    operation: 'licenses.revoke',
    authorizes: { type: 'licenses', action: 'revoke', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/licenses/{id}/actions/revoke`,
    access: EMIT,
    summary: 'Revoke a license: removed with its machines, components and tokens, as a delete is',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    // 409: a token was generated for the license while it was being removed.
    faults: [403, 409],
  }),
};

/**
 * How much a usage action adds or takes (docs/rules.md §18.6): an integer from 0, 1 when not given;
 * as Keygen, a value no license could count is 400 at its pointer.
 */
const usesStep = (action: 'increment' | 'decrement') =>
  z.optional(
    z.number().check(
      z.maximum(LIMIT_MAX, 'integer is too large'),
      // Not below 0: an increment by a negative number would be a decrement, which the bearers that
      // count uses (a license, its owner) may not make.
      z.minimum(0, 'must not be negative'),
      z.int(),
      z.describe(`How many uses to ${action === 'increment' ? 'add' : 'take'}; default 1`),
    ),
  );

/** A usage action's body: none at all, or `{meta: {increment: n}}` (`decrement` to take), as Keygen's SDKs send it. */
const incrementBody = z.optional(z.strictObject({ meta: z.optional(z.strictObject({ increment: usesStep('increment') })) }));
const decrementBody = z.optional(z.strictObject({ meta: z.optional(z.strictObject({ decrement: usesStep('decrement') })) }));

/** Usage metering (docs/rules.md §18.6): the license named by its id or its key, as Keygen names it. */
export const licenseUses = {
  incrementUsage: declare({
    operation: 'licenses.incrementUsage',
    authorizes: { type: 'licenses', action: 'usage.increment', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/increment-usage`,
    access: EMIT,
    summary: "Add to a license's uses, up to its maxUses",
    auth: 'bearer',
    params: ['id'],
    body: incrementBody,
    answers: { 200: { resource: 'licenses' } },
    // 422 USES_LIMIT_EXCEEDED, USES_INVALID; 409: the count moved on every try.
    faults: [403, 409, 422],
  }),
  decrementUsage: declare({
    operation: 'licenses.decrementUsage',
    authorizes: { type: 'licenses', action: 'usage.decrement', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/decrement-usage`,
    access: EMIT,
    summary: "Take from a license's uses, down to 0",
    auth: 'bearer',
    params: ['id'],
    body: decrementBody,
    answers: { 200: { resource: 'licenses' } },
    faults: [403, 409, 422],
  }),
  resetUsage: declare({
    operation: 'licenses.resetUsage',
    authorizes: { type: 'licenses', action: 'usage.reset', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/reset-usage`,
    access: EMIT,
    summary: "Reset a license's uses to 0",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    faults: [403],
  }),
};

/** Changing a license's owner, and Keygen's older path for it. */
const changeOwner = (operation: string, path: string, summary: string) =>
  declare({
    operation,
    authorizes: { type: 'licenses', action: 'owner.update', record: true },
    method: 'PUT',
    path: `${ACCOUNT}/licenses/{id}/${path}`,
    access: EMIT,
    summary,
    auth: 'bearer',
    params: ['id'],
    body: userOrNone(),
    answers: { 200: { resource: 'licenses' } },
    // 422 OWNER_NOT_FOUND; 409: its owner changed meanwhile.
    faults: [403, 409, 422],
  });

export const licenseOwners = {
  changeOwner: changeOwner('licenses.changeOwner', 'owner', "Change a license's owner (data null: none), the license named by id or key"),
  changeUser: changeOwner('licenses.changeUser', 'user', "Change a license's owner: Keygen's older path, as PUT /licenses/<id>/owner"),
};

/** `PUT /licenses/<id>/policy`'s body (docs/rules.md §18.12): the policy to move to (Keygen takes `policy` too). */
const policyBody = z.strictObject({ data: z.strictObject({ type: z.enum(['policies', 'policy']), id: nonBlank() }) });

/** Moving a license to another policy: a family of its own (lib/families.ts), with the license's other relationships to come. */
export const licenseTransfers = {
  changePolicy: declare({
    operation: 'licenseRelationships.changePolicy',
    authorizes: { type: 'licenses', action: 'policy.update', record: true },
    method: 'PUT',
    path: `${ACCOUNT}/licenses/{id}/policy`,
    access: EMIT,
    summary: 'Move a license to another policy of its product, the license named by id or key',
    auth: 'bearer',
    params: ['id'],
    body: policyBody,
    answers: { 200: { resource: 'licenses' } },
    // 422 POLICY_NOT_FOUND, POLICY_NOT_COMPATIBLE; 409: its policy changed meanwhile.
    faults: [403, 409, 422],
  }),
};
