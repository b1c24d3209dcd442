/** The pooled keys' operations, and a policy's pool (docs/rules.md §18.9): what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { relationship, resourceDocument, updateDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { uuidFilter } from '../../http/query.ts';

const key = z.string().check(z.describe('The license key it will be: 8 characters to 1 KB, unique among the pools and the licenses'));

export const keys = {
  create: declare({
    operation: 'keys.create',
    authorizes: { type: 'keys', action: 'create' },
    method: 'POST',
    path: `${ACCOUNT}/keys`,
    access: EMIT,
    summary: "Add a key to a policy's pool",
    auth: 'bearer',
    body: resourceDocument('keys', { key }, { policy: relationship('policies') }),
    answers: { 201: { resource: 'keys' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'keys.list',
    authorizes: { type: 'keys', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/keys`,
    access: READ,
    summary: "List the pools' keys",
    auth: 'bearer',
    paged: true,
    query: z.object({ policy: uuidFilter(), product: uuidFilter() }),
    answers: { 200: { list: 'keys' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'keys.retrieve',
    authorizes: { type: 'keys', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/keys/{id}`,
    access: READ,
    summary: 'Retrieve a pooled key',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'keys' } },
    faults: [403],
  }),
  update: declare({
    operation: 'keys.update',
    authorizes: { type: 'keys', action: 'update', record: true },
    method: 'PATCH',
    path: `${ACCOUNT}/keys/{id}`,
    access: EMIT,
    summary: 'Change a pooled key',
    auth: 'bearer',
    params: ['id'],
    body: updateDocument('keys', { key: z.optional(key) }),
    answers: { 200: { resource: 'keys' } },
    faults: [403, 409, 422],
  }),
  remove: declare({
    operation: 'keys.delete',
    authorizes: { type: 'keys', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/keys/{id}`,
    access: EMIT,
    summary: 'Delete a pooled key',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403],
  }),
  pool: declare({
    operation: 'policies.pool',
    authorizes: { type: 'policies', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/policies/{id}/pool`,
    access: READ,
    summary: "List a policy's pool of keys",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    answers: { 200: { list: 'keys' } },
    faults: [403],
  }),
  pop: declare({
    operation: 'policies.pool.pop',
    authorizes: { type: 'policies', action: 'pool.pop', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/policies/{id}/pool`,
    access: EMIT,
    summary: "Take one key out of a policy's pool, and answer it",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'keys' } },
    // 422 POLICY_POOL_NOT_SUPPORTED, POLICY_POOL_EMPTY; 409: the pool kept changing (many concurrent takers).
    faults: [403, 409, 422],
  }),
};
