/**
 * Inputs that reach the table, at and past their bounds (docs/rules.md §2.2, §3.1, §3.2): whatever a
 * request sends is either stored and given back exactly, or refused with a 4xx that points at
 * it and changes nothing — never a 500 from DynamoDB or its marshaller.
 *
 * - metadata: numbers past DynamoDB's range and keys named after Object.prototype's members, at
 *   any depth, on every resource that has it; numbers JSON reads as Infinity, and nesting past
 *   64 levels, refused at the value;
 * - other numbers sent: each refused by its rule;
 * - token permissions and webhook subscriptions: bounded in count and in each entry's length;
 * - an environment's webhook endpoints at their largest: 20, with URLs of 2048 four-byte
 *   characters and every kind, all in its one subscriptions item;
 * - a validation's scope, echoed in the validation's events: bounded.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventKinds } from '#shared/events/kinds.ts';
import { MAX_ENDPOINTS } from '#shared/resources/webhook-endpoints/entity.ts';
import { call, expectError, newAccount, newEnvironment, type Reply, type TestAccount } from '../support/client.ts';
import { doc, licensing, ref } from '../support/licensing.ts';
import { type Delivery, ofKind, type Receiver, startReceiver } from '../support/receiver.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;
beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** Sends `body` with the metadata `text` (raw JSON: an object literal would turn `__proto__` into a prototype). */
function sendRaw(method: string, path: string, body: unknown, text: string, options: { environment?: string } = {}) {
  const raw = JSON.stringify(body).replace('"<metadata>"', text);
  return call(method, `${account.path}${path}`, {
    token: account.adminToken,
    raw,
    headers: { 'content-type': 'application/vnd.api+json' },
    ...(options.environment ? { environment: options.environment } : {}),
  });
}

/** `doc(type, attributes)` with a metadata placeholder that sendRaw fills in. */
const withMetadata = (type: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
  doc(type, { ...attributes, metadata: '<metadata>' }, relationships);

/** Every member of Object.prototype, `__proto__` and `constructor` among them. */
const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype);
/** Below 1e-130 and above 9.99e125 in magnitude, past 38 digits, the least and the greatest doubles. */
const NUMBERS = ['1e-131', '-1e-131', '1e126', '-1e300', '5e-324', '1.7976931348623157e308', '123456789012345678901234567890123456789012'];

/** Each prototype key at the top, again inside itself, and beside an array of the numbers; a number under each. */
const METADATA = `{${PROTOTYPE_KEYS.map(
  (key, i) =>
    `"${key}":{"${key}":${NUMBERS[i % NUMBERS.length]},"toString":[${NUMBERS.join(',')}],"deeper":{"constructor":{"valueOf":null}}}`,
).join(',')},"numbers":[${NUMBERS.join(',')}]}`;
/** What comes back: the metadata as JSON.parse reads it and JSON.stringify writes it. */
const EXPECTED = JSON.stringify(JSON.parse(METADATA));

const metadataOf = (reply: Reply, what: string) => {
  expect(reply.status, `${what}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return JSON.stringify(reply.body.data.attributes.metadata);
};

describe('metadata holds any key and any number JSON can carry', () => {
  it('on create, read, update and list of every resource that has it', async () => {
    const g = await l.graph();
    const resources: { path: string; body: unknown; updatable: boolean }[] = [
      { path: '/users', body: withMetadata('users', { email: `${randomUUID().slice(0, 8)}@bounds.example` }), updatable: true },
      { path: '/products', body: withMetadata('products', { name: 'Bounds' }), updatable: true },
      {
        path: '/policies',
        body: withMetadata('policies', { name: 'Bounds' }, { product: ref('products', g.product.id) }),
        updatable: true,
      },
      { path: '/licenses', body: withMetadata('licenses', {}, { policy: ref('policies', g.policy.id) }), updatable: true },
      {
        path: '/machines',
        body: withMetadata('machines', { fingerprint: `fp-${randomUUID()}` }, { license: ref('licenses', g.license.id) }),
        updatable: true,
      },
      {
        path: '/components',
        body: withMetadata('components', { fingerprint: `c-${randomUUID()}`, name: 'Part' }, { machine: ref('machines', g.machine.id) }),
        updatable: true,
      },
      { path: '/entitlements', body: withMetadata('entitlements', { name: 'Bounds', code: `B-${randomUUID()}` }), updatable: true },
      // A process is never updated: created, pinged, killed.
      {
        path: '/processes',
        body: withMetadata('processes', { pid: '4242' }, { machine: ref('machines', g.machine.id) }),
        updatable: false,
      },
    ];
    for (const { path, body, updatable } of resources) {
      const made = await sendRaw('POST', path, body, METADATA);
      expect(metadataOf(made, `POST ${path}`)).toBe(EXPECTED);
      const id = made.body.data.id as string;
      const type = made.body.data.type as string;
      expect(metadataOf(await l.api('GET', `${path}/${id}`), `GET ${path}`)).toBe(EXPECTED);
      if (updatable) {
        // An update without metadata keeps it; one with metadata replaces it whole (docs/rules.md §3.2).
        expect(metadataOf(await l.api('PATCH', `${path}/${id}`, { body: doc(type, {}) }), `PATCH ${path}`)).toBe(EXPECTED);
        const replaced = await l.api('PATCH', `${path}/${id}`, { body: doc(type, { metadata: { plain: 1 } }) });
        expect(metadataOf(replaced, `PATCH ${path}`)).toBe('{"plain":1}');
        expect(metadataOf(await sendRaw('PATCH', `${path}/${id}`, withMetadata(type, {}), METADATA), `PATCH ${path}`)).toBe(EXPECTED);
        expect(metadataOf(await l.api('GET', `${path}/${id}`), `GET ${path}`)).toBe(EXPECTED);
      }
      const listed = await l.api('GET', `${path}?page[size]=100`);
      expect(listed.status).toBe(200);
      const found = listed.body.data.find((record: { id: string }) => record.id === id);
      expect(JSON.stringify(found?.attributes.metadata), `list ${path}`).toBe(EXPECTED);
    }
  });

  it('on the components a machine is activated with', async () => {
    const g = await l.graph();
    const body = doc(
      'machines',
      { fingerprint: `fp-${randomUUID()}` },
      {
        license: ref('licenses', g.license.id),
        components: {
          data: [{ type: 'components', attributes: { fingerprint: `c-${randomUUID()}`, name: 'Part', metadata: '<metadata>' } }],
        },
      },
    );
    const made = await sendRaw('POST', '/machines', body, METADATA);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const components = await l.api('GET', `/machines/${made.body.data.id}/components`);
    expect(components.body.data).toHaveLength(1);
    expect(JSON.stringify(components.body.data[0].attributes.metadata)).toBe(EXPECTED);
  });
});

describe('metadata it cannot give back as sent is refused at the value (400), writing nothing', () => {
  const nested = (levels: number, inner = '1') => `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;
  /** `/data/attributes/metadata` followed by `levels` times `/a`. */
  const deepPointer = (levels: number) => `/data/attributes/metadata${'/a'.repeat(levels)}`;

  it('numbers JSON reads as Infinity (they would come back as null)', async () => {
    const before = await l.api('GET', '/products?page[size]=1');
    for (const [text, pointer] of [
      ['{"a":1e400}', '/data/attributes/metadata/a'],
      ['{"a":{"b":[0,-1e999]}}', '/data/attributes/metadata/a/b/1'],
      ['{"__proto__":{"constructor":[2e308]}}', '/data/attributes/metadata/__proto__/constructor/0'],
    ]) {
      expectError(await sendRaw('POST', '/products', withMetadata('products', { name: 'Infinite' }), text), 400, {
        code: 'PARAMETER_INVALID',
        source: { pointer },
        detail: /number out of range/,
      });
    }
    expect((await l.api('GET', '/products?page[size]=1')).body.links.meta.count).toBe(before.body.links.meta.count);
  });

  it('nesting past 64 levels, however deep (the metadata object is the first level)', async () => {
    const user = await l.api('POST', '/users', { body: doc('users', { email: `${randomUUID().slice(0, 8)}@deep.example` }) });
    const path = `/users/${user.body.data.id}`;
    const deepest = await sendRaw('PATCH', path, withMetadata('users', {}), nested(64));
    expect(metadataOf(deepest, 'PATCH 64 levels')).toBe(nested(64));
    for (const levels of [65, 150_000]) {
      expectError(await sendRaw('PATCH', path, withMetadata('users', {}), nested(levels)), 400, {
        code: 'PARAMETER_INVALID',
        source: { pointer: deepPointer(64) },
        detail: /nested too deep/,
      });
    }
    expectError(await sendRaw('POST', '/products', withMetadata('products', { name: 'Deep' }), nested(100_000, '[]')), 400, {
      source: { pointer: deepPointer(64) },
    });
    expect(metadataOf(await l.api('GET', path), 'GET')).toBe(nested(64));
  });
});

describe('other numbers sent are refused by their rules', () => {
  it('machines, policies, check-outs and validations', async () => {
    const g = await l.graph();
    const machine = (attributes: Record<string, unknown>) =>
      `{"data":{"type":"machines","attributes":{"fingerprint":"fp-${randomUUID()}",${Object.entries(attributes)
        .map(([name, value]) => `"${name}":${value}`)
        .join(',')}},"relationships":{"license":{"data":{"type":"licenses","id":"${g.license.id}"}}}}}`;
    const cases: [string, string, string, number, string | undefined, string][] = [
      ['POST', '/machines', machine({ cores: '1e300' }), 422, 'CORES_INVALID', '/data/attributes/cores'],
      ['POST', '/machines', machine({ memory: '1e-200' }), 422, 'MEMORY_INVALID', '/data/attributes/memory'],
      ['POST', '/machines', machine({ disk: '-1e126' }), 422, 'DISK_INVALID', '/data/attributes/disk'],
      ['POST', '/machines', machine({ cores: '1e400' }), 400, 'PARAMETER_INVALID', '/data/attributes/cores'],
      [
        'POST',
        '/policies',
        `{"data":{"type":"policies","attributes":{"name":"n","maxMachines":1e300},"relationships":{"product":{"data":{"type":"products","id":"${g.product.id}"}}}}}`,
        400,
        'PARAMETER_INVALID',
        '/data/attributes/maxMachines',
      ],
      [
        'PATCH',
        `/policies/${g.policy.id}`,
        '{"data":{"type":"policies","attributes":{"duration":1e-200}}}',
        400,
        'PARAMETER_INVALID',
        '/data/attributes/duration',
      ],
      ['POST', `/licenses/${g.license.id}/actions/validate`, '{"meta":{"nonce":1e300}}', 400, 'PARAMETER_INVALID', '/meta/nonce'],
    ];
    for (const [method, path, raw, status, code, pointer] of cases) {
      const reply = await call(method, `${account.path}${path}`, {
        token: account.adminToken,
        raw,
        headers: { 'content-type': 'application/vnd.api+json' },
      });
      expectError(reply, status, { code, source: { pointer } });
    }
    const checkOut = await l.api('POST', `/licenses/${g.license.id}/actions/check-out`, { body: { meta: { ttl: 1e300 } } });
    expectError(checkOut, 400, { code: 'CHECKOUT_TTL_INVALID', source: { parameter: 'ttl' } });
  });
});

describe('token permissions are bounded in count and in length', () => {
  it('on environment, product and license tokens: 400 past 200 entries or 64 characters, 422 for an unknown one, generating nothing', async () => {
    const g = await l.graph();
    const env = await newEnvironment(account, 'ISOLATED');
    const routes: [string, string | undefined][] = [
      [`/environments/${env.id}/tokens`, env.code],
      [`/products/${g.product.id}/tokens`, undefined],
      [`/licenses/${g.license.id}/tokens`, undefined],
    ];
    const tokensSeen = async () =>
      (await l.api('GET', '/tokens?page[size]=1')).body.links.meta.count +
      (await l.api('GET', `/environments/${env.id}/tokens?page[size]=1`)).body.links.meta.count;
    const before = await tokensSeen();
    const pointer = '/data/attributes/permissions';
    for (const [path, environment] of routes) {
      const generate = (permissions: string[]) => l.api('POST', path, { environment, body: doc('tokens', { permissions }) });
      expectError(await generate(Array.from({ length: 201 }, () => 'license.read')), 400, {
        code: 'PARAMETER_INVALID',
        source: { pointer },
      });
      expectError(await generate(['license.read', 'machine.read', 'x'.repeat(65)]), 400, {
        code: 'PARAMETER_INVALID',
        source: { pointer: `${pointer}/2` },
      });
      expectError(await generate(['license.read', 'x'.repeat(20_000)]), 400, { source: { pointer: `${pointer}/1` } });
      const unknown = expectError(await generate(['license.read', 'y'.repeat(64)]), 422, {
        code: 'PERMISSIONS_NOT_ALLOWED',
        source: { pointer },
      });
      expect(unknown.detail.length).toBeLessThan(200);
    }
    expect(await tokensSeen()).toBe(before);
    // 200 entries of 64 characters at most are read, and kept once each.
    const [path, environment] = routes[2] ?? [];
    const many = await l.api('POST', path ?? '', {
      environment,
      body: doc('tokens', { permissions: Array.from({ length: 200 }, (_, i) => (i % 2 ? 'license.read' : 'machine.read')) }),
    });
    expect(many.status, JSON.stringify(many.body)).toBe(200);
    expect(many.body.data.attributes.permissions).toEqual(['machine.read', 'license.read']);
  });
});

describe('webhook subscriptions', () => {
  it('an entry over 64 characters is refused with 400 at the entry, changing nothing', async () => {
    const endpoint = (subscriptions: string[]) => doc('webhook-endpoints', { url: `${receiver.url}/short`, subscriptions });
    expectError(await l.api('POST', '/webhook-endpoints', { body: endpoint(['user.created', 'k'.repeat(65)]) }), 400, {
      code: 'PARAMETER_INVALID',
      source: { pointer: '/data/attributes/subscriptions/1' },
    });
    const made = await l.api('POST', '/webhook-endpoints', { body: endpoint(['user.created']) });
    expect(made.status).toBe(201);
    const id = made.body.data.id as string;
    expectError(
      await l.api('PATCH', `/webhook-endpoints/${id}`, { body: doc('webhook-endpoints', { subscriptions: ['x'.repeat(5000)] }) }),
      400,
      {
        source: { pointer: '/data/attributes/subscriptions/0' },
      },
    );
    expect((await l.api('GET', `/webhook-endpoints/${id}`)).body.data.attributes.subscriptions).toEqual(['user.created']);
    expect((await l.api('DELETE', `/webhook-endpoints/${id}`)).status).toBe(204);
  });

  it("an environment's 20 endpoints at their largest share its subscriptions item; a change still reaches them all; a 21st is refused", async () => {
    const env = await newEnvironment(account, 'ISOLATED');
    const api = (method: string, path: string, body?: unknown) => l.api(method, path, { environment: env.code, body });
    // The longest URL an endpoint takes: 2048 characters, the fragment (never sent) of 4-byte ones.
    const base = `${receiver.url}/${env.code}#`;
    const longest = `${base}${'😀'.repeat(2048 - [...base].length)}`;
    expect([...longest]).toHaveLength(2048);
    expect(Buffer.byteLength(longest)).toBeGreaterThan(7_900);
    // Every kind there is, and `*`, twice over: kept once each.
    const subscriptions = ['*', ...eventKinds(), ...eventKinds(), '*'];
    const ids: string[] = [];
    for (let i = 0; i < MAX_ENDPOINTS; i++) {
      const made = await api('POST', '/webhook-endpoints', doc('webhook-endpoints', { url: longest, subscriptions }));
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body.data.attributes.url).toBe(longest);
      expect(made.body.data.attributes.subscriptions).toEqual(['*', ...eventKinds()]);
      ids.push(made.body.data.id);
    }
    expectError(await api('POST', '/webhook-endpoints', doc('webhook-endpoints', { url: longest })), 422, {
      code: 'WEBHOOK_ENDPOINTS_LIMIT_EXCEEDED',
    });
    const user = await api('POST', '/users', doc('users', { email: `${randomUUID().slice(0, 8)}@largest.example` }));
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const aboutUser = (deliveries: Delivery[]) =>
      ofKind(deliveries, 'user.created').filter((d) => JSON.parse(d.json.data.attributes.payload).data.id === user.body.data.id);
    await receiver.waitFor((deliveries) => aboutUser(deliveries).length >= MAX_ENDPOINTS);
    const delivered = aboutUser(receiver.deliveries);
    expect(new Set(delivered.map((d) => d.json.data.relationships.endpoint.data.id))).toEqual(new Set(ids));
    expect(delivered.every((d) => d.json.data.attributes.endpoint === longest)).toBe(true);
    // Each still reads back whole.
    expect((await api('GET', `/webhook-endpoints/${ids[19]}`)).body.data.attributes.url).toBe(longest);
  });
});

describe("a validation's scope, echoed in its events, is bounded", () => {
  it('past 64 KB as JSON it is refused with 400 at /meta/scope, recording nothing; just under, it validates and its event carries it', async () => {
    const g = await l.graph();
    const endpoint = await l.api('POST', '/webhook-endpoints', {
      body: doc('webhook-endpoints', {
        url: `${receiver.url}/validations`,
        subscriptions: ['license.validation.failed', 'license.validation.succeeded'],
      }),
    });
    expect(endpoint.status).toBe(201);
    const fingerprints = (each: number) => Array.from({ length: 100 }, (_, i) => `${i}-${'f'.repeat(each)}`);
    const pointer = '/meta/scope';
    expectError(
      await l.api('POST', `/licenses/${g.license.id}/actions/validate`, {
        body: { meta: { scope: { fingerprints: fingerprints(9_000) } } },
      }),
      400,
      {
        code: 'PARAMETER_INVALID',
        source: { pointer },
      },
    );
    const key = g.license.attributes.key as string;
    expectError(
      await call('POST', `${account.path}/licenses/actions/validate-key`, {
        body: { meta: { key, scope: { fingerprints: fingerprints(700) } } },
      }),
      400,
      { code: 'PARAMETER_INVALID', source: { pointer } },
    );
    const heavy = { fingerprints: fingerprints(600) };
    expect(Buffer.byteLength(JSON.stringify(heavy))).toBeLessThan(64 * 1024);
    const validated = await call('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key, scope: heavy } } });
    expect(validated.status, JSON.stringify(validated.body)).toBe(200);
    expect(validated.body.meta.scope).toEqual(heavy);
    await receiver.waitFor((deliveries) => ofKind(deliveries, 'license.validation.failed').length > 0);
    // The refused validations recorded nothing: the one event is the validation that was read.
    const events = ofKind(receiver.deliveries, 'license.validation.failed');
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]?.json.data.attributes.payload).meta.scope).toEqual(heavy);
    expect((await l.api('DELETE', `/webhook-endpoints/${endpoint.body.data.id}`)).status).toBe(204);
  });
});
