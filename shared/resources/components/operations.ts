/** The components' operations: what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { nonBlank, relationship, resourceDocument, updateDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { uuidFilter } from '../../http/query.ts';
import { metadataSchema } from '../rules.ts';

const metadata = metadataSchema();

/** What a component is made of: in `POST /components`, and in `POST /machines` for the components it comes with. */
export const componentAttributes = { fingerprint: nonBlank(), name: nonBlank(), metadata: z.optional(metadata) };

export const components = {
  create: declare({
    operation: 'components.create',
    authorizes: { type: 'components', action: 'create' },
    method: 'POST',
    path: `${ACCOUNT}/components`,
    access: EMIT,
    summary: 'Add a hardware component to a machine',
    auth: 'bearer',
    body: resourceDocument('components', componentAttributes, { machine: relationship('machines') }),
    answers: { 201: { resource: 'components' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'components.list',
    authorizes: { type: 'components', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/components`,
    access: READ,
    summary: 'List components',
    auth: 'bearer',
    paged: true,
    query: z.object({ machine: uuidFilter(), license: uuidFilter(), owner: uuidFilter(), user: uuidFilter(), product: uuidFilter() }),
    answers: { 200: { list: 'components' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'components.retrieve',
    authorizes: { type: 'components', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/components/{id}`,
    access: READ,
    summary: 'Retrieve a component',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'components' } },
    faults: [403],
  }),
  update: declare({
    operation: 'components.update',
    authorizes: { type: 'components', action: 'update', record: true },
    method: 'PATCH',
    path: `${ACCOUNT}/components/{id}`,
    access: EMIT,
    summary: 'Update a component',
    auth: 'bearer',
    params: ['id'],
    body: updateDocument('components', { name: z.optional(nonBlank()), metadata: z.optional(metadata) }),
    answers: { 200: { resource: 'components' } },
    faults: [403, 409, 422],
  }),
  remove: declare({
    operation: 'components.delete',
    authorizes: { type: 'components', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/components/{id}`,
    access: EMIT,
    summary: 'Delete a component',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403],
  }),
  machine: declare({
    operation: 'components.machine',
    authorizes: { type: 'components', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/components/{id}/machine`,
    access: READ,
    summary: "Retrieve a component's machine",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'machines' } },
    faults: [403],
  }),
  license: declare({
    operation: 'components.license',
    authorizes: { type: 'components', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/components/{id}/license`,
    access: READ,
    summary: "Retrieve a component's license",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    faults: [403],
  }),
  product: declare({
    operation: 'components.product',
    authorizes: { type: 'components', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/components/{id}/product`,
    access: READ,
    summary: "Retrieve a component's product",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'products' } },
    faults: [403],
  }),
};
