/**
 * The resource objects the API answers with, one schema per type, as the document builders show
 * them (shared/resources/<type>/document.ts, `accountDocument` for accounts). The OpenAPI
 * description (shared/reference/openapi.ts) turns them into its `components.schemas`; the HTTP tests
 * check every answer against that description, so a document that gains, loses or retypes a
 * member fails them until its schema here follows.
 */
import * as z from 'zod/mini';
import { eventKinds } from '../events/kinds.ts';
import type { ResourceType } from '../http/declaration.ts';
import { CHECK_OUT_ALGORITHMS } from '../resources/check-out/certificate.ts';
import type { IsolationStrategy } from '../resources/environments/entity.ts';
import type { LicenseStatus } from '../resources/licenses/entity.ts';
import { HEARTBEAT_STATUSES } from '../resources/machines/heartbeat.ts';
import {
  EXPIRATION_BASES,
  EXPIRATION_STRATEGIES,
  KEY_SCHEMES,
  MACHINE_UNIQUENESS_STRATEGIES,
  MATCHING_STRATEGIES,
  RENEWAL_BASES,
  UNIQUENESS_STRATEGIES,
} from '../resources/policies/entity.ts';
import { HEARTBEAT_BASES, HEARTBEAT_CULL_STRATEGIES, HEARTBEAT_RESURRECTION_STRATEGIES } from '../resources/policies/heartbeat.ts';
import { OVERAGE_STRATEGIES, PROCESS_LEASING_STRATEGIES } from '../resources/policies/limits.ts';
import { PROCESS_STATUSES } from '../resources/processes/entity.ts';
import type { TokenKind } from '../resources/tokens/entity.ts';
import type { UserRole, UserStatus } from '../resources/users/entity.ts';
import type { WebhookEventStatus } from '../resources/webhook-events/entity.ts';

/**
 * The schemas the description names (`#/components/schemas/<id>`): the resource objects and the
 * pieces they share. (Descriptions go with `z.describe`, which zod's conversion reads.)
 */
export const namedSchemas = z.registry<{ id: string }>();

function named<S extends z.ZodMiniType>(id: string, schema: S): S {
  namedSchemas.add(schema, { id });
  return schema;
}

/** Every member of a union of string literals, checked complete at compile time. */
const every =
  <T extends string>() =>
  <const V extends readonly T[]>(values: V & ([T] extends [V[number]] ? unknown : never)) =>
    z.enum(values);

const Id = named('Id', z.uuid());
const Timestamp = named('Timestamp', z.iso.datetime().check(z.describe('An ISO 8601 time in UTC')));
/** Set by the service alone: a create or an update that names it is refused (unpermitted parameter). */
const LastCheckOut = named(
  'LastCheckOut',
  z.nullable(Timestamp).check(z.describe('When the record was last checked out (docs/rules.md §20.5); null before the first. Read-only')),
);
const Metadata = named('Metadata', z.record(z.string(), z.unknown()).check(z.describe('Free-form metadata: any JSON object, as sent')));

const identifier = <T extends ResourceType>(type: T) => z.strictObject({ type: z.literal(type), id: Id });
const Related = named('RelatedLinks', z.strictObject({ related: z.string() }));
const SelfLinks = named('SelfLinks', z.strictObject({ self: z.string() }));

const EmptyToOne = named('EmptyToOne', z.strictObject({ data: z.null() }));
/** A related record named by id, with its own path as link; `{data: null}` when there is none. */
const toOne = <T extends ResourceType>(type: T) => z.union([z.strictObject({ links: Related, data: identifier(type) }), EmptyToOne]);
/** A to-one relationship served under the record's own path (`/components/<id>/machine`). */
const nestedOne = <T extends ResourceType>(type: T) => z.strictObject({ links: Related, data: z.nullable(identifier(type)) });
/** A to-many relationship served under the record's own path (`/users/<id>/tokens`): a link only. */
const nested = z.strictObject({ links: Related });
const account = z.strictObject({ links: Related, data: identifier('accounts') });
const environment = toOne('environments');

/** A policy's key scheme, which its licenses keep. */
const KeyScheme = named(
  'KeyScheme',
  z
    .nullable(z.enum(KEY_SCHEMES))
    .check(
      z.describe(
        "How license keys are made: null, random (or as given); ED25519_SIGN, `key/<dataset>.<signature>` signed with the account's Ed25519 key (docs/rules.md §18.2)",
      ),
    ),
);

function resource<T extends ResourceType, A extends z.core.$ZodLooseShape, R extends z.core.$ZodLooseShape>(
  id: string,
  type: T,
  attributes: A,
  relationships: R,
  meta?: z.ZodMiniType,
) {
  return named(
    id,
    z.strictObject({
      id: Id,
      type: z.literal(type),
      attributes: z.strictObject({ ...attributes, created: Timestamp, updated: Timestamp }),
      relationships: z.strictObject(relationships),
      links: SelfLinks,
      ...(meta ? { meta } : {}),
    }),
  );
}

/**
 * An entitlement attached to a policy or a license: no attributes but its times, and no path of
 * its own (its link is the holder's entitlements).
 */
function attachment<T extends ResourceType, H extends ResourceType>(id: string, type: T, holder: string, holderType: H) {
  return named(
    id,
    z.strictObject({
      id: Id,
      type: z.literal(type),
      attributes: z.strictObject({ created: Timestamp, updated: Timestamp }),
      relationships: z.strictObject({ account, environment, entitlement: toOne('entitlements'), [holder]: toOne(holderType) }),
      links: Related,
    }),
  );
}

/** A related record that is always there: its identifier, with its own path as link. */
const linked = <T extends ResourceType>(type: T) => z.strictObject({ links: Related, data: identifier(type) });

/** A webhook event's endpoint: named for good, linked while it exists (a link to a removed endpoint would answer 404). */
const EventEndpoint = named(
  'WebhookEventEndpoint',
  z
    .union([linked('webhook-endpoints'), z.strictObject({ data: identifier('webhook-endpoints') })])
    .check(z.describe('The endpoint the event was for, always by identifier; `links.related` only while the endpoint exists')),
);

/**
 * A license or machine file (shared/resources/check-out/): made by a check-out and kept nowhere, so
 * it has no `links` to read it back by, nor `created` and `updated`.
 */
function checkOutFile<T extends 'license-files' | 'machine-files'>(id: string, type: T, relationships: z.core.$ZodLooseShape) {
  return named(
    id,
    z.strictObject({
      id: Id.check(z.describe('New for every check-out')),
      type: z.literal(type),
      attributes: z.strictObject({
        certificate: z
          .string()
          .check(z.describe('The armoured file: `-----BEGIN ... FILE-----`, base64 of {enc, sig, alg} in lines of 60 (docs/rules.md §20)')),
        algorithm: z.enum(CHECK_OUT_ALGORITHMS),
        includes: z.array(z.string()),
        ttl: z.nullable(z.int()).check(z.describe('Seconds from issued to expiry; null: the file never expires')),
        issued: Timestamp,
        expiry: z.nullable(Timestamp),
      }),
      relationships: z.strictObject({ account, environment, ...relationships }),
    }),
  );
}

/** The resource object of each type. */
export const resourceSchemas: { readonly [T in ResourceType]: z.ZodMiniType } = {
  accounts: resource(
    'Account',
    'accounts',
    { slug: z.string(), name: z.string(), protected: z.boolean() },
    {},
    z.optional(
      z.strictObject({
        keys: z.strictObject({
          ed25519: z
            .string()
            .check(z.describe("The Ed25519 public key answers and files are signed with: base64 of the key's 64 hex digits")),
        }),
      }),
    ),
  ),
  users: resource(
    'User',
    'users',
    {
      fullName: z.nullable(z.string()),
      firstName: z.nullable(z.string()),
      lastName: z.nullable(z.string()),
      email: z.string(),
      status: every<UserStatus>()(['ACTIVE', 'BANNED']),
      role: every<UserRole>()(['user', 'admin']),
      metadata: Metadata,
    },
    { account, environment, products: nested, licenses: nested, machines: nested, tokens: nested },
  ),
  tokens: resource(
    'Token',
    'tokens',
    {
      kind: every<TokenKind>()(['admin-token', 'user-token', 'environment-token', 'product-token', 'activation-token']),
      token: z.optional(z.string().check(z.describe('The token value: only in the answer that generates the token'))),
      name: z.nullable(z.string()),
      expiry: z.nullable(Timestamp),
      permissions: z.array(z.string()),
    },
    {
      account,
      // Who holds the token: a user (admin and user tokens), an environment, a product or a license.
      bearer: z.strictObject({
        links: Related,
        data: z.strictObject({ type: z.enum(['users', 'environments', 'products', 'licenses']), id: Id }),
      }),
      environment,
    },
  ),
  environments: resource(
    'Environment',
    'environments',
    { name: z.string(), code: z.string(), isolationStrategy: every<IsolationStrategy>()(['ISOLATED', 'SHARED']) },
    { account },
  ),
  products: resource(
    'Product',
    'products',
    { name: z.string(), url: z.nullable(z.string()), metadata: Metadata },
    { account, environment },
  ),
  policies: resource(
    'Policy',
    'policies',
    {
      name: z.string(),
      componentUniquenessStrategy: z.enum(UNIQUENESS_STRATEGIES),
      componentMatchingStrategy: z.enum(MATCHING_STRATEGIES),
      machineUniquenessStrategy: z.enum(MACHINE_UNIQUENESS_STRATEGIES),
      requireComponentsScope: z.boolean(),
      protected: z.boolean(),
      maxMachines: z.nullable(z.int()),
      scheme: KeyScheme,
      duration: z.nullable(z.int().check(z.describe('Seconds a license lasts; null: perpetual'))),
      expirationStrategy: z.enum(EXPIRATION_STRATEGIES),
      expirationBasis: z.enum(EXPIRATION_BASES),
      renewalBasis: z.enum(RENEWAL_BASES),
      floating: z.boolean(),
      strict: z.boolean(),
      maxCores: z.nullable(z.int()),
      maxProcesses: z.nullable(z.int()),
      overageStrategy: z.enum(OVERAGE_STRATEGIES),
      processLeasingStrategy: z.enum(PROCESS_LEASING_STRATEGIES),
      requireHeartbeat: z.boolean(),
      heartbeatDuration: z.nullable(z.int().check(z.describe('Seconds; null: 600'))),
      heartbeatCullStrategy: z.enum(HEARTBEAT_CULL_STRATEGIES),
      heartbeatResurrectionStrategy: z.enum(HEARTBEAT_RESURRECTION_STRATEGIES),
      heartbeatBasis: z.enum(HEARTBEAT_BASES),
      metadata: Metadata,
    },
    { account, environment, product: toOne('products'), entitlements: nested },
  ),
  licenses: resource(
    'License',
    'licenses',
    {
      key: z.nullable(
        z
          .string()
          .check(
            z.describe(
              'null for a reader who may not see the key (docs/rules.md §18.1); under ED25519_SIGN, `key/` + base64url(dataset) + `.` + base64url(Ed25519 signature of what precedes the dot), base64url with `=` padding',
            ),
          ),
      ),
      scheme: KeyScheme,
      name: z.nullable(z.string()),
      status: every<LicenseStatus>()(['ACTIVE', 'EXPIRING', 'EXPIRED', 'SUSPENDED']).check(
        z.describe('Derived: SUSPENDED, else EXPIRED, else EXPIRING (expiry within 3 days), else ACTIVE'),
      ),
      suspended: z.boolean(),
      protected: z.boolean(),
      expiry: z.nullable(Timestamp),
      lastCheckOut: LastCheckOut,
      metadata: Metadata,
    },
    {
      account,
      environment,
      product: nestedOne('products'),
      policy: nestedOne('policies'),
      owner: nestedOne('users'),
      machines: nested,
      entitlements: nested,
    },
  ),
  machines: resource(
    'Machine',
    'machines',
    {
      fingerprint: z.string(),
      name: z.nullable(z.string()),
      hostname: z.nullable(z.string()),
      platform: z.nullable(z.string()),
      ip: z.nullable(z.string()),
      cores: z.nullable(z.int().check(z.gte(1), z.lte(2_147_483_647))),
      memory: z.nullable(z.int().check(z.gte(0), z.describe('Bytes'))),
      disk: z.nullable(z.int().check(z.gte(0), z.describe('Bytes'))),
      lastCheckOut: LastCheckOut,
      requireHeartbeat: z.boolean().check(z.describe("The policy's requireHeartbeat, or true once the machine has pinged")),
      heartbeatStatus: z.enum(HEARTBEAT_STATUSES),
      heartbeatDuration: z.int().check(z.describe('Seconds a ping keeps the machine alive')),
      lastHeartbeat: z.nullable(Timestamp),
      nextHeartbeat: z.nullable(Timestamp),
      metadata: Metadata,
    },
    { account, environment, product: toOne('products'), license: nestedOne('licenses'), owner: toOne('users'), components: nested },
  ),
  components: resource(
    'Component',
    'components',
    { fingerprint: z.string(), name: z.string(), metadata: Metadata },
    { account, environment, product: nestedOne('products'), license: nestedOne('licenses'), machine: nestedOne('machines') },
  ),
  processes: resource(
    'Process',
    'processes',
    {
      pid: z.string(),
      status: z.enum(PROCESS_STATUSES).check(z.describe('ALIVE up to nextHeartbeat, DEAD after (the sweeper then removes it)')),
      interval: z.int().check(z.describe("Seconds a ping keeps the process alive: the policy's heartbeatDuration")),
      lastHeartbeat: Timestamp,
      nextHeartbeat: Timestamp,
      metadata: Metadata,
    },
    { account, environment, product: nestedOne('products'), license: nestedOne('licenses'), machine: nestedOne('machines') },
  ),
  entitlements: resource(
    'Entitlement',
    'entitlements',
    { name: z.string(), code: z.string(), metadata: Metadata },
    { account, environment },
  ),
  'policy-entitlements': attachment('PolicyEntitlement', 'policy-entitlements', 'policy', 'policies'),
  'license-entitlements': attachment('LicenseEntitlement', 'license-entitlements', 'license', 'licenses'),
  'webhook-endpoints': resource(
    'WebhookEndpoint',
    'webhook-endpoints',
    {
      url: z.string(),
      subscriptions: z.array(z.string()),
      enabled: z.boolean(),
      signingSecret: z.optional(z.string().check(z.describe('`whsec_<base64>`: only in the answer that creates the endpoint'))),
    },
    { account, environment },
  ),
  'webhook-events': named(
    'WebhookEvent',
    z
      .strictObject({
        id: Id,
        type: z.literal('webhook-events'),
        meta: z.strictObject({ idempotencyToken: z.string().check(z.describe('64 hex characters, the same across retries')) }),
        attributes: z.strictObject({
          endpoint: z.string(),
          payload: z.string().check(z.describe('The `{data, meta?}` document of the change, serialised')),
          event: z.enum(eventKinds() as [string, ...string[]]),
          status: every<WebhookEventStatus>()(['DELIVERING', 'DELIVERED', 'FAILING', 'FAILED']),
          lastResponseCode: z.nullable(z.int()),
          lastResponseBody: z.nullable(z.string()),
          created: Timestamp,
          updated: Timestamp,
        }),
        relationships: z.strictObject({ account, environment, endpoint: EventEndpoint }),
        links: SelfLinks,
      })
      .check(
        z.describe(
          'One delivery of one change to one endpoint (docs/rules.md §26.3). It outlives its endpoint: `relationships.endpoint.data` always names the endpoint it was for, `links.related` only while that endpoint exists.',
        ),
      ),
  ),
  'license-files': checkOutFile('LicenseFile', 'license-files', { license: linked('licenses') }),
  'machine-files': checkOutFile('MachineFile', 'machine-files', { license: linked('licenses'), machine: linked('machines') }),
};

/** The name of a type's resource object in the description. */
export function resourceSchemaName(type: ResourceType): string {
  const id = namedSchemas.get(resourceSchemas[type])?.id;
  if (!id) throw new Error(`The resource object of ${type} has no name`);
  return id;
}
