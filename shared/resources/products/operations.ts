/** The products' operations: what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { nonBlank, resourceDocument, updateDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { metadataSchema } from '../rules.ts';
import { tokenRequestBody } from '../tokens/operations.ts';

const metadata = metadataSchema();

export const products = {
  create: declare({
    operation: 'products.create',
    authorizes: { type: 'products', action: 'create' },
    method: 'POST',
    path: `${ACCOUNT}/products`,
    access: EMIT,
    summary: 'Create a product',
    auth: 'bearer',
    body: resourceDocument('products', { name: nonBlank(), url: z.nullish(z.string()), metadata: z.optional(metadata) }),
    answers: { 201: { resource: 'products' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'products.list',
    authorizes: { type: 'products', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/products`,
    access: READ,
    summary: 'List products',
    auth: 'bearer',
    paged: true,
    answers: { 200: { list: 'products' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'products.retrieve',
    authorizes: { type: 'products', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/products/{id}`,
    access: READ,
    summary: 'Retrieve a product',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'products' } },
    faults: [403],
  }),
  update: declare({
    operation: 'products.update',
    authorizes: { type: 'products', action: 'update', record: true },
    method: 'PATCH',
    path: `${ACCOUNT}/products/{id}`,
    access: EMIT,
    summary: 'Update a product',
    auth: 'bearer',
    params: ['id'],
    body: updateDocument('products', { name: z.optional(nonBlank()), url: z.nullish(z.string()), metadata: z.optional(metadata) }),
    answers: { 200: { resource: 'products' } },
    faults: [403, 409, 422],
  }),
  remove: declare({
    operation: 'products.delete',
    authorizes: { type: 'products', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/products/{id}`,
    access: EMIT,
    summary: 'Delete a product with its policies, licenses, machines and components',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403, 409],
  }),
  tokensGenerate: declare({
    operation: 'products.tokens.generate',
    authorizes: { type: 'products', action: 'tokens.generate', record: true },
    method: 'POST',
    path: `${ACCOUNT}/products/{id}/tokens`,
    access: EMIT,
    summary: 'Generate a product token',
    auth: 'bearer',
    params: ['id'],
    body: tokenRequestBody,
    // 200, not 201, like environment tokens (docs/rules.md §14.3); the value is shown only here.
    answers: { 200: { resource: 'tokens' } },
    faults: [403, 422],
  }),
  ofUser: declare({
    operation: 'users.products',
    authorizes: { type: 'users', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/users/{id}/products`,
    access: READ,
    summary: "List the products of a user's licenses",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    answers: { 200: { list: 'products' } },
    faults: [403],
  }),
  ofLicense: declare({
    operation: 'licenses.product',
    authorizes: { type: 'licenses', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/product`,
    access: READ,
    summary: "Retrieve a license's product",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'products' } },
    faults: [403],
  }),
};
