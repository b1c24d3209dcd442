/** The policies' operations: what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { nonBlank, relationship, resourceDocument, updateDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { uuidFilter } from '../../http/query.ts';
import { metadataSchema } from '../rules.ts';

/**
 * The attributes a create and an update share. Strategies are read as strings: one the model
 * does not know is a broken rule (422 <ATTRIBUTE>_NOT_ALLOWED), not a malformed body.
 */
const attributes = {
  componentUniquenessStrategy: z.optional(z.string()),
  componentMatchingStrategy: z.optional(z.string()),
  machineUniquenessStrategy: z.optional(z.string()),
  requireComponentsScope: z.optional(z.boolean()),
  protected: z.optional(z.boolean()),
  maxMachines: z.nullish(z.int()),
  duration: z.nullish(z.int().check(z.describe('Seconds a license lasts, 86400 to 2147483647; null: perpetual (docs/rules.md §17.1)'))),
  expirationStrategy: z.optional(z.string().check(z.describe('RESTRICT_ACCESS (default), REVOKE_ACCESS, MAINTAIN_ACCESS or ALLOW_ACCESS'))),
  expirationBasis: z.optional(z.string().check(z.describe('FROM_CREATION (default), FROM_FIRST_VALIDATION or FROM_FIRST_ACTIVATION'))),
  renewalBasis: z.optional(z.string().check(z.describe('FROM_EXPIRY (default), FROM_NOW or FROM_NOW_IF_EXPIRED'))),
  floating: z.optional(z.boolean().check(z.describe('Default: true unless maxMachines is 1; false (node-locked) needs maxMachines 1'))),
  strict: z.optional(z.boolean().check(z.describe('Validation also judges machines, cores and processes (docs/rules.md §19.2)'))),
  maxCores: z.nullish(z.int()),
  maxProcesses: z.nullish(z.int()),
  transferStrategy: z.optional(
    z
      .string()
      .check(
        z.describe(
          "A license moved to it keeps its expiry (KEEP_EXPIRY, the default) or starts the policy's duration afresh (RESET_EXPIRY)",
        ),
      ),
  ),
  authenticationStrategy: z.optional(
    z
      .string()
      .check(
        z.describe('How its licenses act as bearers: TOKEN, LICENSE (their key), MIXED (both; the default) or NONE (docs/rules.md §6.3)'),
      ),
  ),
  requireCheckIn: z.optional(
    z.boolean().check(z.describe('Licenses must check in every checkInIntervalCount checkInIntervals (docs/rules.md §18.8)')),
  ),
  checkInInterval: z.nullish(z.string().check(z.describe('day, week, month or year; required with requireCheckIn'))),
  checkInIntervalCount: z.nullish(z.int().check(z.describe('1 to 365; required with requireCheckIn'))),
  maxUses: z.nullish(z.int().check(z.describe('The uses a license may count, 0 to 2147483647 (docs/rules.md §18.6); null: unlimited'))),
  maxUsers: z.nullish(
    z.int().check(z.describe('The users a license may have, its owner included, 0 to 2147483647 (docs/rules.md §18.11); null: unlimited')),
  ),
  overageStrategy: z.optional(
    z.string().check(z.describe('NO_OVERAGE (default), ALWAYS_ALLOW_OVERAGE, ALLOW_1_25X_OVERAGE, ALLOW_1_5X_OVERAGE or ALLOW_2X_OVERAGE')),
  ),
  processLeasingStrategy: z.optional(z.string().check(z.describe('PER_MACHINE (default) or PER_LICENSE'))),
  requireHeartbeat: z.optional(z.boolean()),
  heartbeatDuration: z.nullish(z.int().check(z.describe('Seconds a ping keeps a machine or process alive, at least 60; null: 600'))),
  heartbeatCullStrategy: z.optional(z.string().check(z.describe('DEACTIVATE_DEAD (default) or KEEP_DEAD'))),
  heartbeatResurrectionStrategy: z.optional(
    z.string().check(z.describe('NO_REVIVE (default), ALWAYS_REVIVE (with KEEP_DEAD), or 1, 2, 5, 10 or 15 _MINUTE_REVIVE')),
  ),
  heartbeatBasis: z.optional(z.string().check(z.describe('FROM_FIRST_PING, or FROM_CREATION (the default when requireHeartbeat)'))),
  metadata: z.optional(metadataSchema()),
};

/** Set at creation only (a PATCH naming it is 400, an unpermitted parameter); read as a string, like the strategies. */
const createOnly = {
  scheme: z.nullish(z.string().check(z.describe('null (the default: random keys) or ED25519_SIGN (signed keys, docs/rules.md §18.2)'))),
  usePool: z.optional(z.boolean().check(z.describe("Its licenses take their keys from the policy's pool of keys (docs/rules.md §18.9)"))),
};

export const policies = {
  create: declare({
    operation: 'policies.create',
    authorizes: { type: 'policies', action: 'create' },
    method: 'POST',
    path: `${ACCOUNT}/policies`,
    access: EMIT,
    summary: 'Create a policy for a product',
    auth: 'bearer',
    body: resourceDocument('policies', { name: nonBlank(), ...attributes, ...createOnly }, { product: relationship('products') }),
    answers: { 201: { resource: 'policies' } },
    faults: [403, 422],
  }),
  list: declare({
    operation: 'policies.list',
    authorizes: { type: 'policies', action: 'list' },
    method: 'GET',
    path: `${ACCOUNT}/policies`,
    access: READ,
    summary: 'List policies',
    auth: 'bearer',
    paged: true,
    query: z.object({ product: uuidFilter() }),
    answers: { 200: { list: 'policies' } },
    faults: [403],
  }),
  retrieve: declare({
    operation: 'policies.retrieve',
    authorizes: { type: 'policies', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/policies/{id}`,
    access: READ,
    summary: 'Retrieve a policy',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'policies' } },
    faults: [403],
  }),
  update: declare({
    operation: 'policies.update',
    authorizes: { type: 'policies', action: 'update', record: true },
    method: 'PATCH',
    path: `${ACCOUNT}/policies/{id}`,
    access: EMIT,
    summary: 'Update a policy',
    auth: 'bearer',
    params: ['id'],
    body: updateDocument('policies', { name: z.optional(nonBlank()), ...attributes }),
    answers: { 200: { resource: 'policies' } },
    faults: [403, 409, 422],
  }),
  remove: declare({
    operation: 'policies.delete',
    authorizes: { type: 'policies', action: 'delete', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/policies/{id}`,
    access: EMIT,
    summary: 'Delete a policy with its licenses, machines and components',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    faults: [403, 409],
  }),
  ofLicense: declare({
    operation: 'licenses.policy',
    authorizes: { type: 'licenses', action: 'read', record: true },
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/policy`,
    access: READ,
    summary: "Retrieve a license's policy",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'policies' } },
    faults: [403],
  }),
};
