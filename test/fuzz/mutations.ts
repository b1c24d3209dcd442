/**
 * What the fuzzer does to a valid request: each mutation is plain data drawn by fast-check (so a
 * seed gives the same mutations every run) and applied when the request is built (request.ts).
 * Large values (a megabyte string, a deeply nested array) are drawn as their recipe and only made
 * when sent, so drawing twenty thousand plans stays quick.
 */
import fc from 'fast-check';

/** JSON text sent exactly as written: numbers JSON.stringify would round or refuse, a `__proto__` key. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A string of `unit` repeated to about `bytes` bytes of JSON. */
export class Huge {
  constructor(
    readonly unit: string,
    readonly bytes: number,
  ) {}
}

/** Arrays or objects nested `depth` deep. */
export class Deep {
  constructor(
    readonly depth: number,
    readonly shape: 'array' | 'object',
  ) {}
}

/** An object of `keys` keys. */
export class Wide {
  constructor(readonly keys: number) {}
}

export type BodyMutation =
  /** The node at a path (chosen by `pick`) replaced by `value`. */
  | { kind: 'replace'; pick: number; value: unknown }
  /** A key added to the object at a path (or the nearest object above it). */
  | { kind: 'add'; pick: number; key: string; value: unknown }
  /** The key at a path removed. */
  | { kind: 'remove'; pick: number }
  /** The whole document replaced. */
  | { kind: 'whole'; value: unknown }
  /** `data.attributes.metadata` set to `value`. */
  | { kind: 'metadata'; value: unknown }
  /** An array of the body (or, where it has none, `data.attributes.permissions`) filled with `count` strings of `bytes` bytes. */
  | { kind: 'flood'; pick: number; count: number; bytes: number };

export type RawMutation =
  | { kind: 'truncate'; pick: number }
  | { kind: 'wrap'; before: string; after: string }
  | { kind: 'text'; text: string };

export type Mutation =
  | { on: 'body'; mutation: BodyMutation }
  /** The serialized body itself: malformed JSON, bytes that are not UTF-8. */
  | { on: 'raw'; mutation: RawMutation; invalidUtf8: boolean }
  /** A body on a route that reads none (or none when it needs one). */
  | { on: 'bodyPresence' }
  | { on: 'contentType'; value: string | null }
  | { on: 'accept'; value: string }
  | { on: 'method'; value: string }
  | { on: 'query'; text: string | Huge }
  | { on: 'environment'; value: EnvironmentMutation }
  | { on: 'authorization'; value: AuthorizationMutation }
  | { on: 'id'; value: IdMutation }
  | { on: 'account'; value: AccountMutation };

export type EnvironmentMutation =
  | { kind: 'absent' }
  | { kind: 'text'; text: string; header: 'service' | 'keygen' | 'query' }
  /** Both headers, naming different environments. */
  | { kind: 'conflict' }
  /** A deleted environment, another account's, another scope's, by id or code. */
  | { kind: 'dead' | 'foreign' | 'otherScope'; byId: boolean }
  | { kind: 'upperCase' };

export type AuthorizationMutation = { kind: 'text'; text: string } | { kind: 'foreign' } | { kind: 'lowerScheme' } | { kind: 'otherScope' };

export type IdMutation =
  | { kind: 'foreign' | 'otherScope' | 'otherType' | 'deleted'; pick: number }
  | { kind: 'uuid'; uuid: string }
  | { kind: 'text'; text: string };

export type AccountMutation = { kind: 'slug' | 'upperSlug' | 'foreign' } | { kind: 'uuid'; uuid: string } | { kind: 'text'; text: string };

// ---------------------------------------------------------------------------------------------
// Values

const EDGE_NUMBERS = [
  '1e-200',
  '1e-131',
  '1e-129',
  '5e-324',
  '1e300',
  '1e400',
  '-1e400',
  '-0',
  '0.0',
  '9007199254740993',
  '-9007199254740993',
  '2147483648',
  '4294967296',
  '1e21',
  '123456789012345678901234567890',
  '0.1',
  '-1',
  '1.5',
];

const UNICODE = [
  '😀𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'e\u0301\u0301\u0301\u0301',
  '\u202eRTL\u202c mixed',
  'مرحبا بالعالم',
  '\ud800',
  'a\udc00b',
  '\udbff\udfff',
  '\u0000',
  'nul\u0000inside',
  '\ufeffbom',
  '\u200b\u200c\u200d',
  '\uffff\ufffe',
  'Ω≈ç√∫˜µ≤≥÷',
  '<script>alert(1)</script>',
  "'; DROP TABLE x; --",
  '#{7*7}{{7*7}}',
  '../../etc/passwd',
  ' ',
  '',
];

const HUGE_UNITS = ['a', '😀', 'e\u0301', '\u202e', '\u0000', '\ud800', 'Ω'];
const HUGE_BYTES = [1_000, 65_536, 300_000, 1_000_000, 1_048_000, 1_100_000];

const edgeNumber = fc.constantFrom(...EDGE_NUMBERS).map((text) => new RawJson(text));
const unicode = fc.oneof(
  fc.constantFrom(...UNICODE),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme-composite', maxLength: 12 }),
);
const huge = fc
  .record({ unit: fc.constantFrom(...HUGE_UNITS), bytes: fc.constantFrom(...HUGE_BYTES) })
  .map(({ unit, bytes }) => new Huge(unit, bytes));
const deep = fc
  .record({ depth: fc.constantFrom(64, 1_000, 10_000, 100_000), shape: fc.constantFrom('array' as const, 'object' as const) })
  .map(({ depth, shape }) => new Deep(depth, shape));
const wide = fc.constantFrom(1_000, 20_000).map((keys) => new Wide(keys));
const wrongType = fc.constantFrom<unknown>(null, true, false, 0, 1, -1, '', 'x', [], {}, [1, 'a', null], { a: 1 }, [[[]]]);
const prototypeish = fc
  .constantFrom(
    '{"__proto__":{"admin":true,"role":"admin"}}',
    '{"constructor":{"prototype":{"admin":true}}}',
    '{"toString":"x","valueOf":1,"hasOwnProperty":null}',
    '{"__proto__":null}',
    '{"__proto__":[]}',
    '{"__proto__":1e-200,"constructor":1}',
  )
  .map((text) => new RawJson(text));

/** A value where another was expected. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: wrongType, weight: 4 },
  { arbitrary: edgeNumber, weight: 3 },
  { arbitrary: unicode, weight: 3 },
  { arbitrary: huge, weight: 1 },
  { arbitrary: deep, weight: 1 },
  { arbitrary: prototypeish, weight: 2 },
  { arbitrary: wide, weight: 1 },
);

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];
const unknownKey = fc.oneof(
  fc.constantFrom(...PROTOTYPE_KEYS),
  fc.constantFrom('isAdmin', 'role', 'id', 'type', 'accountId', 'environmentId', 'data', 'attributes', 'meta', 'links', 'included'),
  fc.constantFrom('', ' ', 'ä', '😀', '\u0000', '\ud800', 'a'.repeat(1_000), 'a.b', 'a[b]', '$set'),
  fc.stringMatching(/^[a-zA-Z]{1,12}$/),
);

/** Metadata the model must refuse or keep as it is: tiny and huge numbers, prototype keys, deep and wide values. */
const oddMetadata = fc.oneof(
  edgeNumber.map((number) => new RawJson(`{"n":${number.text}}`)),
  fc.constantFrom(...PROTOTYPE_KEYS).map((key) => new RawJson(`{${JSON.stringify(key)}:{"x":1}}`)),
  fc.constantFrom(...PROTOTYPE_KEYS).map((key) => new RawJson(`{${JSON.stringify(key)}:1e-200}`)),
  fc.dictionary(unknownKey, oddValue, { maxKeys: 3 }),
  deep,
  wide,
  huge,
  wrongType,
);

const bodyMutation: fc.Arbitrary<BodyMutation> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), value: oddValue }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant('add' as const), pick: fc.nat(), key: unknownKey, value: oddValue }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('whole' as const),
      value: fc.oneof(
        wrongType,
        fc.constantFrom<unknown>({ data: null }, { data: [] }, { data: {} }, { data: { type: 'x' } }, { errors: [] }, { meta: {} }),
        prototypeish,
        deep,
        huge,
      ),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('metadata' as const), value: oddMetadata }), weight: 4 },
  {
    arbitrary: fc.record({
      kind: fc.constant('flood' as const),
      pick: fc.nat(),
      count: fc.constantFrom(10, 100, 200, 201, 2_000),
      bytes: fc.constantFrom(8, 500, 5_000, 9_000),
    }),
    weight: 2,
  },
);

const rawMutation: fc.Arbitrary<RawMutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('wrap' as const),
    before: fc.constantFrom('', '\ufeff', ' \n\t', '/* c */', '[', '{"data":null,', 'garbage'),
    after: fc.constantFrom('', ',', '}', ']', ' garbage', '\u0000', '{}', '\n\n\n'),
  }),
  fc.record({
    kind: fc.constant('text' as const),
    text: fc.constantFrom(
      '',
      '{',
      '[',
      'null',
      'true',
      '0',
      '"string"',
      'undefined',
      'NaN',
      "{'data':1}",
      '{"data":NaN}',
      '{"data":Infinity}',
      '{"data":{"type":"x",}}',
      '<?xml version="1.0"?><data/>',
      'data[type]=licenses',
      '\u0000\u0000',
      '{"data":{"type":"licenses","attributes":{"a":1,"a":2}}}',
    ),
  }),
);

const CONTENT_TYPES = [
  'text/plain',
  'application/json',
  'application/json; charset=utf-8',
  'application/vnd.api+json; charset=utf-8',
  'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
  'application/vnd.api+json; profile="x"',
  'APPLICATION/VND.API+JSON',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/xml',
  '*/*',
  'garbage',
  'application/vnd.api+json, text/plain',
];

const ACCEPTS = [
  'text/html',
  'application/json',
  '*/*',
  'application/vnd.api+json; ext=x',
  'application/octet-stream',
  'x/y;q=oops',
  'image/png',
];

const QUERIES = [
  'page[size]=-1',
  'page[size]=0',
  'page[size]=101',
  'page[size]=1e2',
  'page[size]=abc',
  'page[size]=',
  'page[size]=1.5',
  'page[number]=0',
  'page[number]=-1',
  'page[number]=9007199254740993',
  'page[number]=99999',
  'page=1',
  'page[]=1',
  'page[foo]=1',
  'page[size][]=1',
  'page[size][a]=1',
  'page[cursor]=garbage',
  'page[cursor]=%00',
  'page[cursor]=&page[number]=2',
  'page[size]=1&page[size]=2',
  'page[size]=5&page[size]=x',
  'limit=-1',
  'limit=1000',
  'limit[]=1',
  'limit=5&page[size]=7',
  'owner=not-a-uuid',
  'owner[]=a&owner[]=b',
  'owner[x]=1',
  'user=&policy=&product=',
  'events[]=',
  'events=*',
  'events[]=license.created&events[]=nope',
  '__proto__[x]=1',
  '__proto__=1',
  'constructor[prototype][x]=1',
  'toString=1',
  'hasOwnProperty=1',
  'page[__proto__]=1',
  '%zz=1',
  'a=%zz',
  '%00=%00',
  '%F0%9F%98%80=%F0%9F%98%80',
  'a=%ED%A0%80',
  'environment=garbage',
  'environment=',
  'environment[]=x',
  'include=../../etc',
  'include=license,license,license',
  'encrypt=maybe',
  'ttl=-1',
  'ttl=1e300',
  'algorithm=none',
  '&&&==&',
  '[]=1',
  'a[b][c][d][e][f][g][h][i][j][k][l][m][n][o][p]=1',
];

const hugeQuery = fc
  .record({ unit: fc.constantFrom('a', 'page[size]=1&', 'x[]=1&', '%F0%9F%98%80'), bytes: fc.constantFrom(1_000, 8_000, 60_000) })
  .map(({ unit, bytes }) => new Huge(unit, bytes));

const GARBAGE_SEGMENTS = [
  'x',
  'null',
  'undefined',
  '0',
  '-1',
  '1e300',
  '%00',
  '%2F',
  '%2e%2e',
  'a'.repeat(2_000),
  '%F0%9F%98%80',
  '%ED%A0%80',
  '%C0%AF',
  '%',
  'actions',
  '%7Bid%7D',
  '*',
  '__proto__',
  'constructor',
  'toString',
  '%20',
  'ÿ',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];

const GARBAGE_ENVIRONMENTS = [
  '',
  ' ',
  'null',
  'undefined',
  '*',
  '../',
  '%00',
  'e'.repeat(4_000),
  'ÿÿÿ',
  'code with spaces',
  'actions',
  ',',
  'a,b',
  '00000000-0000-0000-0000-000000000000',
  'global',
  '__proto__',
  'constructor',
];

const GARBAGE_AUTHORIZATIONS = [
  'Bearer',
  'Bearer ',
  'Bearer x',
  'Token x',
  'Basic',
  'Basic !!!',
  `Basic ${Buffer.from(':').toString('base64')}`,
  `Basic ${Buffer.from('nobody@nowhere.example:wrong password').toString('base64')}`,
  'License',
  'License x',
  `Bearer admin-${'0'.repeat(64)}`,
  `Bearer user-${'f'.repeat(64)}`,
  `Bearer activ-${'1'.repeat(64)}`,
  `Bearer ${'a'.repeat(6_000)}`,
  'Bearer a b c',
  'Bearer __proto__',
  'Bearer, Basic x',
  'Digest username="x"',
];

const environmentMutation: fc.Arbitrary<EnvironmentMutation> = fc.oneof(
  fc.constant({ kind: 'absent' as const }),
  fc.record({
    kind: fc.constant('text' as const),
    text: fc.constantFrom(...GARBAGE_ENVIRONMENTS),
    header: fc.constantFrom('service' as const, 'keygen' as const, 'query' as const),
  }),
  fc.constant({ kind: 'conflict' as const }),
  fc.record({ kind: fc.constantFrom('dead' as const, 'foreign' as const, 'otherScope' as const), byId: fc.boolean() }),
  fc.constant({ kind: 'upperCase' as const }),
);

const authorizationMutation: fc.Arbitrary<AuthorizationMutation> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('text' as const), text: fc.constantFrom(...GARBAGE_AUTHORIZATIONS) }), weight: 3 },
  { arbitrary: fc.constant({ kind: 'foreign' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'lowerScheme' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'otherScope' as const }), weight: 2 },
);

const idMutation: fc.Arbitrary<IdMutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('foreign' as const, 'otherScope' as const, 'otherType' as const, 'deleted' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('uuid' as const), uuid: fc.uuid() }),
  fc.record({ kind: fc.constant('text' as const), text: fc.constantFrom(...GARBAGE_SEGMENTS) }),
);

const accountMutation: fc.Arbitrary<AccountMutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('slug' as const, 'upperSlug' as const, 'foreign' as const) }),
  fc.record({ kind: fc.constant('uuid' as const), uuid: fc.uuid() }),
  fc.record({ kind: fc.constant('text' as const), text: fc.constantFrom(...GARBAGE_SEGMENTS) }),
);

/** One mutation of a request; `hasBody` and `hasId` weigh the kinds that apply to it. */
export function mutationOf(hasBody: boolean, hasId: boolean): fc.Arbitrary<Mutation> {
  return fc.oneof(
    { arbitrary: bodyMutation.map((mutation) => ({ on: 'body' as const, mutation })), weight: hasBody ? 16 : 0 },
    {
      arbitrary: fc.record({ on: fc.constant('raw' as const), mutation: rawMutation, invalidUtf8: fc.boolean() }),
      weight: hasBody ? 3 : 1,
    },
    { arbitrary: fc.constant({ on: 'bodyPresence' as const }), weight: 1 },
    { arbitrary: fc.record({ on: fc.constant('contentType' as const), value: fc.constantFrom(...CONTENT_TYPES, null) }), weight: 2 },
    { arbitrary: fc.record({ on: fc.constant('accept' as const), value: fc.constantFrom(...ACCEPTS) }), weight: 1 },
    {
      arbitrary: fc.record({ on: fc.constant('method' as const), value: fc.constantFrom('PUT', 'GET', 'POST', 'PATCH', 'DELETE') }),
      weight: 1,
    },
    {
      arbitrary: fc.record({
        on: fc.constant('query' as const),
        text: fc.oneof({ arbitrary: fc.constantFrom(...QUERIES), weight: 9 }, hugeQuery),
      }),
      weight: 4,
    },
    { arbitrary: fc.record({ on: fc.constant('environment' as const), value: environmentMutation }), weight: 3 },
    { arbitrary: fc.record({ on: fc.constant('authorization' as const), value: authorizationMutation }), weight: 2 },
    { arbitrary: fc.record({ on: fc.constant('id' as const), value: idMutation }), weight: hasId ? 4 : 0 },
    { arbitrary: fc.record({ on: fc.constant('account' as const), value: accountMutation }), weight: 1 },
  );
}
