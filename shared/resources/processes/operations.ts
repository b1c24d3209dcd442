/** The processes' operations: what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { nonBlank, relationship, resourceDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { uuidFilter } from '../../http/query.ts';
import { metadataSchema } from '../rules.ts';

/** The filters of every list of processes (a machine's too). */
const processFilters = z.object({
  machine: uuidFilter(),
  license: uuidFilter(),
  owner: uuidFilter(),
  user: uuidFilter(),
  product: uuidFilter(),
});

export const processes = {
  create: declare({
    operation: 'processes.create',
    authorizes: { type: 'processes', action: 'create' },
    method: 'POST',
    path: `${ACCOUNT}/processes`,
    access: EMIT,
    summary: 'Start a process on a machine',
    auth: 'bearer',
    body: resourceDocument('processes', { pid: nonBlank(), metadata: z.optional(metadataSchema()) }, { machine: relationship('machines') }),
    answers: { 201: { resource: 'processes' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'processes.list',
    authorizes: { type: 'processes', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/processes`,
    access: READ,
    summary: 'List processes',
    auth: 'bearer',
    paged: true,
    query: processFilters,
    answers: { 200: { list: 'processes' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'processes.retrieve',
    authorizes: { type: 'processes', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/processes/{id}`,
    access: READ,
    summary: 'Retrieve a process',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'processes' } },
    faults: [403],
  }),
  remove: declare({
    operation: 'processes.delete',
    authorizes: { type: 'processes', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/processes/{id}`,
    access: EMIT,
    summary: 'Stop a process: delete it',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403],
  }),
  ping: declare({
    operation: 'processes.ping',
    authorizes: { type: 'processes', action: 'ping', record: true },
    method: 'POST',
    path: `${ACCOUNT}/processes/{id}/actions/ping`,
    access: EMIT,
    summary: "Ping a process's heartbeat: alive one more heartbeat duration",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'processes' } },
    // 422 PROCESS_HEARTBEAT_DEAD; 409: pinged meanwhile, again and again.
    faults: [403, 409, 422],
  }),
  machine: declare({
    operation: 'processes.machine',
    authorizes: { type: 'processes', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/processes/{id}/machine`,
    access: READ,
    summary: "Retrieve a process's machine",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'machines' } },
    faults: [403],
  }),
  license: declare({
    operation: 'processes.license',
    authorizes: { type: 'processes', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/processes/{id}/license`,
    access: READ,
    summary: "Retrieve a process's license",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    faults: [403],
  }),
  product: declare({
    operation: 'processes.product',
    authorizes: { type: 'processes', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/processes/{id}/product`,
    access: READ,
    summary: "Retrieve a process's product",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'products' } },
    faults: [403],
  }),
  /** GET /machines/<id>/processes: served by the processes, declared with them. */
  ofMachine: declare({
    operation: 'machines.processes',
    authorizes: { type: 'machines', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/machines/{id}/processes`,
    access: READ,
    summary: "List a machine's processes",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    query: processFilters,
    answers: { 200: { list: 'processes' } },
    faults: [403],
  }),
};
