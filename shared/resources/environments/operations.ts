/**
 * The environments' operations: what each reads of a request, and what it answers. A path's
 * `{id}` names an environment by its id or by its code.
 */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { nonBlank, resourceDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { tokenRequestBody } from '../tokens/operations.ts';

/**
 * An update's document. The path may name the environment by its code, so `data.id` is read
 * here and compared with the id of the environment found (as `updateDocument` would read it
 * otherwise: attributes optional, and `attributes` itself).
 */
const updateBody = z.strictObject({
  data: z.strictObject({
    type: z.literal('environments'),
    id: z.optional(z.string()),
    attributes: z.optional(z.strictObject({ name: z.optional(nonBlank()), code: z.optional(nonBlank()) })),
  }),
});

export const environments = {
  create: declare({
    operation: 'environments.create',
    authorizes: { type: 'environments', action: 'create' },
    method: 'POST',
    path: `${ACCOUNT}/environments`,
    access: EMIT,
    summary: 'Create an environment',
    auth: 'bearer',
    body: resourceDocument('environments', { name: nonBlank(), code: nonBlank(), isolationStrategy: z.optional(z.string()) }),
    answers: { 201: { resource: 'environments' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'environments.list',
    authorizes: { type: 'environments', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/environments`,
    access: READ,
    summary: 'List environments',
    auth: 'bearer',
    paged: true,
    answers: { 200: { list: 'environments' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'environments.retrieve',
    authorizes: { type: 'environments', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/environments/{id}`,
    access: READ,
    summary: 'Retrieve an environment by id or code',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'environments' } },
    faults: [403],
  }),
  update: declare({
    operation: 'environments.update',
    authorizes: { type: 'environments', action: 'update', record: true },
    method: 'PATCH',
    path: `${ACCOUNT}/environments/{id}`,
    access: EMIT,
    summary: 'Update an environment, named by id or code',
    auth: 'bearer',
    params: ['id'],
    pathByAlias: true,
    body: updateBody,
    answers: { 200: { resource: 'environments' } },
    faults: [403, 409, 422],
  }),
  remove: declare({
    operation: 'environments.delete',
    authorizes: { type: 'environments', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/environments/{id}`,
    access: EMIT,
    summary: 'Delete an environment, named by id or code, and purge what it holds',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403],
  }),
  tokensGenerate: declare({
    operation: 'environments.tokens.generate',
    authorizes: { type: 'environments', action: 'tokens.generate', record: true },
    method: 'POST',
    path: `${ACCOUNT}/environments/{id}/tokens`,
    access: EMIT,
    summary: 'Generate an environment token',
    auth: 'bearer',
    params: ['id'],
    body: tokenRequestBody,
    // 200, not 201, like environment tokens (docs/rules.md §14.3); the value is shown only here.
    answers: { 200: { resource: 'tokens' } },
    faults: [403, 422],
  }),
  tokensList: declare({
    operation: 'environments.tokens.list',
    authorizes: { type: 'environments', action: 'tokens.list', record: true },
    method: 'GET',
    path: `${ACCOUNT}/environments/{id}/tokens`,
    access: READ,
    summary: "List an environment's tokens",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    answers: { 200: { list: 'tokens' } },
    faults: [403],
  }),
};
