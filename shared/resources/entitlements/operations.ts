/**
 * The entitlements' operations, and their attachments to policies and licenses: what each reads
 * of a request, and what it answers.
 */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { nonBlank, resourceDocument, updateDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { metadataSchema } from '../rules.ts';

const metadata = metadataSchema();

/** At most this many entitlements are attached or detached by one request. */
const MAX_NAMED = 100;

/** `{data: [{type: "entitlements", id}, ...]}`: the entitlements an attach or a detach names, 1 to 100. */
const entitlementsNamed = z.strictObject({
  data: z
    .array(z.strictObject({ type: z.literal('entitlements'), id: nonBlank() }))
    .check(z.minLength(1, 'names at least one entitlement'), z.maxLength(MAX_NAMED, `names at most ${MAX_NAMED} entitlements`)),
});

export const entitlements = {
  create: declare({
    operation: 'entitlements.create',
    authorizes: { type: 'entitlements', action: 'create' },
    method: 'POST',
    path: `${ACCOUNT}/entitlements`,
    access: EMIT,
    summary: 'Create an entitlement',
    auth: 'bearer',
    body: resourceDocument('entitlements', { name: nonBlank(), code: nonBlank(), metadata: z.optional(metadata) }),
    answers: { 201: { resource: 'entitlements' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'entitlements.list',
    authorizes: { type: 'entitlements', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/entitlements`,
    access: READ,
    summary: 'List entitlements (a license or a user: those it holds)',
    auth: 'bearer',
    paged: true,
    answers: { 200: { list: 'entitlements' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'entitlements.retrieve',
    authorizes: { type: 'entitlements', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/entitlements/{id}`,
    access: READ,
    summary: 'Retrieve an entitlement',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'entitlements' } },
    faults: [403],
  }),
  update: declare({
    operation: 'entitlements.update',
    authorizes: { type: 'entitlements', action: 'update', record: true },
    method: 'PATCH',
    path: `${ACCOUNT}/entitlements/{id}`,
    access: EMIT,
    summary: 'Update an entitlement',
    auth: 'bearer',
    params: ['id'],
    body: updateDocument('entitlements', { name: z.optional(nonBlank()), code: z.optional(nonBlank()), metadata: z.optional(metadata) }),
    answers: { 200: { resource: 'entitlements' } },
    faults: [403, 409, 422],
  }),
  remove: declare({
    operation: 'entitlements.delete',
    authorizes: { type: 'entitlements', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/entitlements/{id}`,
    access: EMIT,
    summary: 'Delete an entitlement, detaching it from every policy and license',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403],
  }),
  ofPolicy: declare({
    operation: 'policies.entitlements',
    authorizes: { type: 'policy-entitlements', action: 'list', record: true },
    method: 'GET',
    path: `${ACCOUNT}/policies/{id}/entitlements`,
    access: READ,
    summary: "List a policy's entitlements",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    answers: { 200: { list: 'entitlements' } },
    faults: [403],
  }),
  attachToPolicy: declare({
    operation: 'policies.entitlements.attach',
    authorizes: { type: 'policy-entitlements', action: 'attach', record: true },
    method: 'POST',
    path: `${ACCOUNT}/policies/{id}/entitlements`,
    access: EMIT,
    summary: 'Attach entitlements to a policy (and so to each of its licenses): all or none',
    auth: 'bearer',
    params: ['id'],
    body: entitlementsNamed,
    answers: { 200: { collection: 'policy-entitlements' } },
    // 409: the policy's entitlements kept changing while this request was made.
    faults: [403, 409, 422],
  }),
  detachFromPolicy: declare({
    operation: 'policies.entitlements.detach',
    authorizes: { type: 'policy-entitlements', action: 'detach', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/policies/{id}/entitlements`,
    access: EMIT,
    summary: 'Detach entitlements from a policy: all or none',
    auth: 'bearer',
    params: ['id'],
    body: entitlementsNamed,
    answers: { 204: { empty: true } },
    faults: [403, 409, 422],
  }),
  ofLicense: declare({
    operation: 'licenses.entitlements',
    authorizes: { type: 'license-entitlements', action: 'list', record: true },
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/entitlements`,
    access: READ,
    summary: "List a license's entitlements: its policy's and its own",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    answers: { 200: { list: 'entitlements' } },
    faults: [403],
  }),
  attachToLicense: declare({
    operation: 'licenses.entitlements.attach',
    authorizes: { type: 'license-entitlements', action: 'attach', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/entitlements`,
    access: EMIT,
    summary: 'Attach entitlements to a license: all or none',
    auth: 'bearer',
    params: ['id'],
    body: entitlementsNamed,
    answers: { 200: { collection: 'license-entitlements' } },
    faults: [403, 409, 422],
  }),
  detachFromLicense: declare({
    operation: 'licenses.entitlements.detach',
    authorizes: { type: 'license-entitlements', action: 'detach', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/licenses/{id}/entitlements`,
    access: EMIT,
    summary: "Detach entitlements from a license: all or none (its policy's only from the policy)",
    auth: 'bearer',
    params: ['id'],
    body: entitlementsNamed,
    answers: { 204: { empty: true } },
    faults: [403, 409, 422],
  }),
};
