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
    method: 'POST',
    path: `${ACCOUNT}/products`,
    handler: 'functions/products/create.ts',
    access: EMIT,
    summary: 'Create a product',
    auth: 'bearer',
    body: resourceDocument('products', { name: nonBlank(), url: z.nullish(z.string()), metadata: z.optional(metadata) }),
    answers: { 201: { resource: 'products' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'products.list',
    method: 'GET',
    path: `${ACCOUNT}/products`,
    handler: 'functions/products/list.ts',
    access: READ,
    summary: 'List products',
    auth: 'bearer',
    paged: true,
    answers: { 200: { list: 'products' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'products.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/products/{id}`,
    handler: 'functions/products/retrieve.ts',
    access: READ,
    summary: 'Retrieve a product',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'products' } },
    faults: [403],
  }),
  update: declare({
    operation: 'products.update',
    method: 'PATCH',
    path: `${ACCOUNT}/products/{id}`,
    handler: 'functions/products/update.ts',
    access: EMIT,
    summary: 'Update a product',
    auth: 'bearer',
    params: ['id'],
    body: updateDocument('products', { name: z.optional(nonBlank()), url: z.nullish(z.string()), metadata: z.optional(metadata) }),
    answers: { 200: { resource: 'products' } },
    faults: [403, 409, 422],
  }),
  delete: declare({
    operation: 'products.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/products/{id}`,
    handler: 'functions/products/delete.ts',
    access: EMIT,
    summary: 'Delete a product with its policies, licenses, machines and components',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403, 409],
  }),
  tokensGenerate: declare({
    operation: 'products.tokens.generate',
    method: 'POST',
    path: `${ACCOUNT}/products/{id}/tokens`,
    handler: 'functions/products/generate-token.ts',
    access: EMIT,
    summary: 'Generate a product token',
    auth: 'bearer',
    params: ['id'],
    body: tokenRequestBody,
    // 200, not 201, like environment tokens (docs/rules.md §2); the value is shown only here.
    answers: { 200: { resource: 'tokens' } },
    faults: [403, 422],
  }),
  ofUser: declare({
    operation: 'users.products',
    method: 'GET',
    path: `${ACCOUNT}/users/{id}/products`,
    handler: 'functions/users/products.ts',
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
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/product`,
    handler: 'functions/licenses/product.ts',
    access: READ,
    summary: "Retrieve a license's product",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'products' } },
    faults: [403],
  }),
};
