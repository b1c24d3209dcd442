/** The machines' operations: what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { aliasedUpdateDocument, nonBlank, relationship, resourceDocument, userOrNone } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { uuidFilter } from '../../http/query.ts';
import { NESTED_COMPONENTS_MAX } from '../components/entity.ts';
import { componentAttributes } from '../components/operations.ts';
import { metadataSchema } from '../rules.ts';

const metadata = metadataSchema();

/** The attributes an activation sets and an update may change. */
const mutable = {
  name: z.nullish(z.string()),
  hostname: z.nullish(z.string()),
  platform: z.nullish(z.string()),
  // What Keygen's SDKs send besides: integers are checked by the model's rules (422), not here.
  ip: z.nullish(z.string()),
  cores: z.nullish(z.number()),
  memory: z.nullish(z.number()),
  disk: z.nullish(z.number()),
  metadata: z.optional(metadata),
};

/** Components created with the machine: `{data: [{type, attributes}, ...]}`, at most NESTED_COMPONENTS_MAX. */
const nestedComponents = z.strictObject({
  data: z
    .array(z.strictObject({ type: z.literal('components'), attributes: z.strictObject(componentAttributes) }))
    .check(z.maxLength(NESTED_COMPONENTS_MAX)),
});

/** The filters of every list of machines (a license's and a user's too). */
export const machineFilters = z.object({ license: uuidFilter(), owner: uuidFilter(), user: uuidFilter(), product: uuidFilter() });

export const machines = {
  create: declare({
    operation: 'machines.create',
    authorizes: { type: 'machines', action: 'create' },
    method: 'POST',
    path: `${ACCOUNT}/machines`,
    access: EMIT,
    summary: 'Activate a machine on a license',
    auth: 'bearer',
    body: resourceDocument(
      'machines',
      { fingerprint: nonBlank(), ...mutable },
      { license: relationship('licenses'), owner: z.optional(relationship('users')), components: z.optional(nestedComponents) },
    ),
    answers: { 201: { resource: 'machines' } },
    faults: [403, 409, 422],
  }),
  list: declare({
    operation: 'machines.list',
    authorizes: { type: 'machines', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/machines`,
    access: READ,
    summary: 'List machines',
    auth: 'bearer',
    paged: true,
    query: machineFilters,
    answers: { 200: { list: 'machines' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'machines.retrieve',
    authorizes: { type: 'machines', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/machines/{id}`,
    access: READ,
    summary: 'Retrieve a machine',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'machines' } },
    faults: [403],
  }),
  update: declare({
    operation: 'machines.update',
    authorizes: { type: 'machines', action: 'update', record: true },
    method: 'PATCH',
    path: `${ACCOUNT}/machines/{id}`,
    access: EMIT,
    summary: 'Update a machine',
    auth: 'bearer',
    params: ['id'],
    // The path may name the machine by its fingerprint: `data.id` is compared with the one found.
    pathByAlias: true,
    body: aliasedUpdateDocument('machines', mutable),
    answers: { 200: { resource: 'machines' } },
    faults: [403, 409, 422],
  }),
  remove: declare({
    operation: 'machines.delete',
    authorizes: { type: 'machines', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/machines/{id}`,
    access: EMIT,
    summary: 'Deactivate a machine, with its components',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403, 409],
  }),
  components: declare({
    operation: 'machines.components',
    authorizes: { type: 'machines', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/machines/{id}/components`,
    access: READ,
    summary: "List a machine's components",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    query: z.object({ machine: uuidFilter(), license: uuidFilter(), owner: uuidFilter(), user: uuidFilter(), product: uuidFilter() }),
    answers: { 200: { list: 'components' } },
    faults: [403],
  }),
  license: declare({
    operation: 'machines.license',
    authorizes: { type: 'machines', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/machines/{id}/license`,
    access: READ,
    summary: "Retrieve a machine's license",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    faults: [403],
  }),
  /** GET /users/<id>/machines: served by the machines, declared with them. */
  ofUser: declare({
    operation: 'users.machines',
    authorizes: { type: 'users', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/users/{id}/machines`,
    access: READ,
    summary: "List a user's machines",
    auth: 'bearer',
    params: ['id'],
    paged: true,
    query: machineFilters,
    answers: { 200: { list: 'machines' } },
    faults: [403],
  }),
};

/**
 * A machine's heartbeat actions (docs/rules.md §22.2, §22.3), each under two paths as Keygen has them:
 * `.../actions/ping` and `.../actions/reset`, and the older `ping-heartbeat` and `reset-heartbeat`
 * (one route-table entry each, answering alike).
 */

const ping = {
  auth: 'bearer',
  params: ['id'],
  answers: { 200: { resource: 'machines' } },
  // 422 MACHINE_HEARTBEAT_DEAD; 409: the machine kept changing while the ping was made.
  faults: [403, 409, 422],
} as const;

const reset = {
  auth: 'bearer',
  params: ['id'],
  answers: { 200: { resource: 'machines' } },
  // 422 MACHINE_HEARTBEAT_DEAD: the sweeper is deactivating it; 409 as for a ping.
  faults: [403, 409, 422],
} as const;

export const machineHeartbeats = {
  ping: declare({
    operation: 'machines.ping',
    authorizes: { type: 'machines', action: 'heartbeat.ping', record: true },
    method: 'POST',
    path: `${ACCOUNT}/machines/{id}/actions/ping`,
    access: EMIT,
    summary: "Ping a machine's heartbeat: alive for one more heartbeat duration, or revived within its resurrection window",
    ...ping,
  }),
  pingHeartbeat: declare({
    operation: 'machines.pingHeartbeat',
    authorizes: { type: 'machines', action: 'heartbeat.ping', record: true },
    method: 'POST',
    path: `${ACCOUNT}/machines/{id}/actions/ping-heartbeat`,
    access: EMIT,
    summary: 'Ping a machine’s heartbeat (the older path of ping)',
    ...ping,
  }),
  reset: declare({
    operation: 'machines.reset',
    authorizes: { type: 'machines', action: 'heartbeat.reset', record: true },
    method: 'POST',
    path: `${ACCOUNT}/machines/{id}/actions/reset`,
    access: EMIT,
    summary: "Reset a machine's heartbeat: never pinged again, watched only if its policy requires heartbeats",
    ...reset,
  }),
  resetHeartbeat: declare({
    operation: 'machines.resetHeartbeat',
    authorizes: { type: 'machines', action: 'heartbeat.reset', record: true },
    method: 'POST',
    path: `${ACCOUNT}/machines/{id}/actions/reset-heartbeat`,
    access: EMIT,
    summary: 'Reset a machine’s heartbeat (the older path of reset)',
    ...reset,
  }),
};

/** Changing a machine's owner (docs/rules.md §21.5): a family of its own (lib/families.ts), with its other relationships to come. */
export const machineOwners = {
  changeOwner: declare({
    operation: 'machineRelationships.changeOwner',
    authorizes: { type: 'machines', action: 'owner.update', record: true },
    method: 'PUT',
    path: `${ACCOUNT}/machines/{id}/owner`,
    access: EMIT,
    summary: "Change a machine's owner to one of its license's users (data null: none), the machine named by id or fingerprint",
    auth: 'bearer',
    params: ['id'],
    body: userOrNone(),
    answers: { 200: { resource: 'machines' } },
    // 422 OWNER_NOT_FOUND, OWNER_INVALID; 409: its owner, or its license's, changed meanwhile.
    faults: [403, 409, 422],
  }),
};
