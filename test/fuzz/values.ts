/**
 * Valid request values from the API's description: a fast-check arbitrary for a JSON schema of
 * the description, with plausible values where the schema says only "string" (an e-mail for
 * `email`, a strategy the model knows for `*Strategy`, a loopback receiver for `url`), and
 * placeholders (`Ref`) where a record of the account is named: the fuzzer fills them with ids of
 * its fixtures when it sends the request, so a plan stays the same from one run to the next.
 */
import fc from 'fast-check';
import { PERMISSIONS } from '#shared/auth/permissions.ts';
import { eventKinds } from '#shared/events/kinds.ts';
import { CHECK_OUT_ALGORITHMS } from '#shared/resources/check-out/certificate.ts';
import { LICENSE_FILE_INCLUDES } from '#shared/resources/check-out/options.ts';
import {
  EXPIRATION_BASES,
  EXPIRATION_STRATEGIES,
  KEY_SCHEMES,
  MACHINE_UNIQUENESS_STRATEGIES,
  MATCHING_STRATEGIES,
  RENEWAL_BASES,
  UNIQUENESS_STRATEGIES,
} from '#shared/resources/policies/entity.ts';
import { HEARTBEAT_BASES, HEARTBEAT_CULL_STRATEGIES, HEARTBEAT_RESURRECTION_STRATEGIES } from '#shared/resources/policies/heartbeat.ts';
import { OVERAGE_STRATEGIES, PROCESS_LEASING_STRATEGIES } from '#shared/resources/policies/limits.ts';
import { resolved, type Schema } from './description.ts';
import { RawJson } from './mutations.ts';

/** A record of the account, of `collection`, chosen by `pick` among the fixtures when the request is sent. */
export class Ref {
  constructor(
    readonly collection: string,
    readonly pick: number,
  ) {}
}

/** The loopback receiver of the run's webhook endpoints: no delivery ever leaves the machine. */
export class ReceiverUrl {}

/** The environment of the request's scope, by code (null in the global one). */
export class ScopeEnvironment {}

const ref = (collection: string) => fc.nat().map((pick) => new Ref(collection, pick));

const word = fc.stringMatching(/^[a-z][a-z0-9-]{2,14}$/);
const suffix = fc.stringMatching(/^[0-9a-f]{10}$/);
const futureDate = fc.integer({ min: 1, max: 3_000 }).map((days) => new Date(Date.UTC(2031, 0, 1) + days * 86_400_000).toISOString());

/** The collection a relationship's `type` names: the same, but for the join types of entitlements. */
const collectionOf = (type: string) => (type.endsWith('-entitlements') ? 'entitlements' : type);

/** Strings the model reads by name; anything else is a short free text. */
const STRING_HINTS: Record<string, fc.Arbitrary<unknown>> = {
  email: suffix.map((s) => `fuzz-${s}@fuzz.example`),
  password: fc.constantFrom('a long password', 'another long password'),
  newPassword: fc.constant('a brand new password'),
  passwordResetToken: fc.stringMatching(/^[0-9a-f]{64}$/),
  url: fc.constant(new ReceiverUrl()),
  code: suffix.map((s) => `code-${s}`),
  key: suffix.map((s) => `KEY-${s.toUpperCase()}`),
  fingerprint: suffix.map((s) => `fp-${s}`),
  pid: suffix.map((s) => `pid-${s}`),
  expiry: futureDate,
  name: word,
  firstName: word,
  lastName: word,
  role: fc.constantFrom('user', 'admin'),
  isolationStrategy: fc.constantFrom('ISOLATED', 'SHARED'),
  componentUniquenessStrategy: fc.constantFrom(...UNIQUENESS_STRATEGIES),
  componentMatchingStrategy: fc.constantFrom(...MATCHING_STRATEGIES),
  machineUniquenessStrategy: fc.constantFrom(...MACHINE_UNIQUENESS_STRATEGIES),
  expirationStrategy: fc.constantFrom(...EXPIRATION_STRATEGIES),
  expirationBasis: fc.constantFrom(...EXPIRATION_BASES),
  renewalBasis: fc.constantFrom(...RENEWAL_BASES),
  overageStrategy: fc.constantFrom(...OVERAGE_STRATEGIES),
  processLeasingStrategy: fc.constantFrom(...PROCESS_LEASING_STRATEGIES),
  heartbeatCullStrategy: fc.constantFrom(...HEARTBEAT_CULL_STRATEGIES),
  heartbeatResurrectionStrategy: fc.constantFrom(...HEARTBEAT_RESURRECTION_STRATEGIES),
  heartbeatBasis: fc.constantFrom(...HEARTBEAT_BASES),
  scheme: fc.constantFrom(...KEY_SCHEMES),
  algorithm: fc.constantFrom(...CHECK_OUT_ALGORITHMS),
  environment: fc.constant(new ScopeEnvironment()),
  user: ref('users'),
  machine: ref('machines'),
  product: ref('products'),
  policy: ref('policies'),
  hostname: word,
  platform: fc.constantFrom('linux', 'darwin', 'win32'),
  ip: fc.constantFrom('192.0.2.1', '2001:db8::1'),
};

const ARRAY_HINTS: Record<string, fc.Arbitrary<unknown>> = {
  permissions: fc.oneof(fc.constant(['*']), fc.subarray([...PERMISSIONS], { maxLength: 8 })),
  subscriptions: fc.oneof(fc.constant(['*']), fc.subarray([...eventKinds()], { maxLength: 8 })),
  fingerprints: fc.array(
    suffix.map((s) => `fp-${s}`),
    { minLength: 1, maxLength: 3 },
  ),
  entitlements: fc.array(
    suffix.map((s) => `code-${s}`),
    { maxLength: 3 },
  ),
  include: fc.subarray([...LICENSE_FILE_INCLUDES]),
};

const NUMBER_HINTS: Record<string, fc.Arbitrary<unknown>> = {
  duration: fc.integer({ min: 86_400, max: 10 * 365 * 86_400 }),
  heartbeatDuration: fc.integer({ min: 60, max: 86_400 }),
  maxMachines: fc.integer({ min: 1, max: 1_000 }),
  maxCores: fc.integer({ min: 1, max: 1_000 }),
  maxProcesses: fc.integer({ min: 1, max: 1_000 }),
  ttl: fc.integer({ min: 3_600, max: 31_536_000 }),
  cores: fc.integer({ min: 1, max: 64 }),
  memory: fc.integer({ min: 1, max: 2 ** 40 }),
  disk: fc.integer({ min: 1, max: 2 ** 44 }),
};

/**
 * Free-form metadata: a few keys with strings, numbers, booleans and nulls. Any JSON object is
 * valid metadata, so now and then a key of Object.prototype or a number at the edge of what a
 * double (or DynamoDB) holds, written exactly.
 */
export const metadata = fc.dictionary(
  fc.oneof(
    { arbitrary: word.map((w) => w.replace(/-/g, '_')), weight: 12 },
    { arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty'), weight: 1 },
  ),
  fc.oneof(
    { arbitrary: word, weight: 3 },
    { arbitrary: fc.integer({ min: -1_000, max: 1_000 }), weight: 3 },
    { arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }), weight: 2 },
    { arbitrary: fc.boolean(), weight: 1 },
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: fc.constantFrom('1e-200', '1e300', '-0', '9007199254740993', '5e-324').map((text) => new RawJson(text)), weight: 1 },
  ),
  { maxKeys: 4, noNullPrototype: true },
);

const typesOf = (schema: Schema) => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/** Where a value may also be null, it is so one time in five. */
const sometimesNull = (value: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: value, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 });

/** The hint for a property of one of these types, if the property's name has one. */
function hintOf(key: string, types: string[]): fc.Arbitrary<unknown> | undefined {
  if (types.includes('string')) return STRING_HINTS[key];
  if (types.includes('array')) return ARRAY_HINTS[key];
  if (types.some((type) => type === 'integer' || type === 'number')) return NUMBER_HINTS[key];
  return undefined;
}

/** An arbitrary of values the schema allows, `key` being the property (or array) it is the value of. */
export function valuesOf(schemaOrRef: Schema, key = ''): fc.Arbitrary<unknown> {
  const schema = resolved(schemaOrRef);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) {
    const options = schema.anyOf.filter((option) => resolved(option).type !== 'null');
    const value = fc.oneof(...options.map((option) => valuesOf(option, key)));
    return options.length < schema.anyOf.length ? sometimesNull(value) : value;
  }
  const types = typesOf(schema);
  const nonNull = types.filter((type) => type !== 'null');
  if (types.length > 0 && nonNull.length === 0) return fc.constant(null);
  const value = hintOf(key, nonNull) ?? valueOfType(schema, nonNull[0] ?? 'object', key);
  return nonNull.length < types.length ? sometimesNull(value) : value;
}

function valueOfType(schema: Schema, type: string, key: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'object':
      return objectOf(schema, key);
    case 'array': {
      const items = schema.items ? valuesOf(schema.items, key) : word;
      return fc.array(items, {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    }
    case 'string':
      return word;
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? 0, -1e6), max: Math.min(schema.maximum ?? 1_000, 1e6) });
    case 'number':
      return fc.double({ min: schema.minimum ?? 0, max: schema.maximum ?? 1_000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    default:
      return fc.constant(null);
  }
}

function objectOf(schema: Schema, key: string): fc.Arbitrary<unknown> {
  const properties = schema.properties;
  if (!properties || key === 'metadata') return metadata;
  // A resource identifier (`{type, id}`): the id of a fixture of that type.
  const typeConst = properties.type && resolved(properties.type).const;
  if (typeof typeConst === 'string' && properties.id) {
    return fc.record({ type: fc.constant(typeConst), id: ref(collectionOf(typeConst)) });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) model[name] = valuesOf(property, name);
  return fc.record(model, { requiredKeys: schema.required ?? [], noNullPrototype: true });
}

/** Query values of the routes' own parameters: filters name a fixture, options take their documented values. */
export function queryValuesOf(name: string, schema: Schema): fc.Arbitrary<unknown> {
  const FILTERS: Record<string, string> = {
    owner: 'users',
    user: 'users',
    policy: 'policies',
    product: 'products',
    license: 'licenses',
    machine: 'machines',
    endpoint: 'webhook-endpoints',
  };
  const collection = FILTERS[name];
  if (collection) return ref(collection);
  switch (name) {
    case 'events':
      return fc.oneof(fc.constantFrom(...eventKinds()), fc.subarray([...eventKinds()], { minLength: 1, maxLength: 3 }));
    case 'encrypt':
      return fc.constantFrom('0', '1', 'true', 'false');
    case 'algorithm':
      return fc.constantFrom(...CHECK_OUT_ALGORITHMS);
    case 'ttl':
      return fc.oneof(fc.integer({ min: 3_600, max: 31_536_000 }).map(String), fc.constant(''));
    case 'include':
      return fc.subarray([...LICENSE_FILE_INCLUDES]).map((names) => names.join(','));
    default:
      return valuesOf(schema, name);
  }
}
