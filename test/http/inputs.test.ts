/**
 * Input that must never reach the table as a 500: metadata of any JSON shape, arrays past any
 * sensible length, bodies over 1 MB. Each is either stored and given back exactly, or refused
 * with a clear 4xx that changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, newAccount, newEnvironment, type Reply, type TestAccount } from '../support/client.ts';
import { doc, expectCode, licensing, ref } from '../support/licensing.ts';
import { stack } from '../support/stack.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
});

/**
 * Numbers DynamoDB cannot hold (below 1e-130 and above 9.99e125 in magnitude, past 38 digits),
 * keys that mean something to JavaScript objects (at the top and deeper), an empty key, and
 * nesting deeper than DynamoDB's 32 levels. Written as text: an object literal would turn
 * `__proto__` into a prototype rather than a key.
 */
const deep = `${'{"d":'.repeat(40)}1e-131${'}'.repeat(40)}`;
const METADATA =
  '{"tiny":1e-200,"huge":-1e+200,"long":12345678901234567890123,"constructor":{"constructor":[1e-300]},' +
  `"__proto__":{"toString":"x","__proto__":1},"toString":"y","hasOwnProperty":null,"":0,"deep":${deep}}`;
/** What comes back: the metadata as JSON.parse reads it and JSON.stringify writes it. */
const EXPECTED = JSON.stringify(JSON.parse(METADATA));

/** Sends `body` with METADATA as its data.attributes.metadata. */
function sendWithMetadata(
  method: string,
  path: string,
  body: { data: { attributes: Record<string, unknown> } },
  options: { authorization?: string } = {},
) {
  const text = JSON.stringify({ ...body, data: { ...body.data, attributes: { ...body.data.attributes, metadata: '<metadata>' } } });
  return call(method, `${account.path}${path}`, {
    ...(options.authorization ? { authorization: options.authorization } : { token: account.adminToken }),
    raw: text.replace('"<metadata>"', METADATA),
    headers: { 'content-type': 'application/vnd.api+json' },
  });
}

const metadataText = (reply: Reply) => {
  expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
  return JSON.stringify(reply.body.data.attributes.metadata);
};

describe('metadata comes back exactly as sent', () => {
  it('on create, update and read of users, products, policies, licenses, machines and components', async () => {
    const g = await l.graph();
    const creates: [string, { data: { type: string; attributes: Record<string, unknown> } }][] = [
      ['/users', doc('users', { email: `${randomUUID().slice(0, 8)}@meta.example` })],
      ['/products', doc('products', { name: 'Meta' })],
      ['/policies', doc('policies', { name: 'Meta' }, { product: ref('products', g.product.id) })],
      ['/licenses', doc('licenses', {}, { policy: ref('policies', g.policy.id) })],
      ['/machines', doc('machines', { fingerprint: `fp-${randomUUID()}` }, { license: ref('licenses', g.license.id) })],
      ['/components', doc('components', { fingerprint: `c-${randomUUID()}`, name: 'Part' }, { machine: ref('machines', g.machine.id) })],
    ];
    for (const [path, body] of creates) {
      const made = await sendWithMetadata('POST', path, body);
      expect(metadataText(made), path).toBe(EXPECTED);
      const id = made.body.data.id as string;
      expect(metadataText(await l.api('GET', `${path}/${id}`)), path).toBe(EXPECTED);
      // Replaced whole by an update, then given back as sent again.
      expect(metadataText(await l.api('PATCH', `${path}/${id}`, { body: doc(body.data.type, { metadata: { plain: 1 } }) }))).toBe(
        '{"plain":1}',
      );
      expect(metadataText(await sendWithMetadata('PATCH', `${path}/${id}`, doc(body.data.type, {}))), path).toBe(EXPECTED);
      expect(metadataText(await l.api('GET', `${path}/${id}`)), path).toBe(EXPECTED);
      const listed = (await l.api('GET', `${path}?page[size]=100`)).body.data.find((record: { id: string }) => record.id === id);
      expect(JSON.stringify(listed.attributes.metadata), path).toBe(EXPECTED);
    }
  });

  it('when a licensee activates a machine with its license key', async () => {
    const g = await l.graph();
    const made = await sendWithMetadata(
      'POST',
      '/machines',
      doc('machines', { fingerprint: `fp-${randomUUID()}` }, { license: ref('licenses', g.license.id) }),
      { authorization: `License ${g.license.attributes.key}` },
    );
    expect(metadataText(made)).toBe(EXPECTED);
  });

  it('still counts keys and bytes: 65 keys or more than 16 KB are refused (422), writing nothing', async () => {
    const g = await l.graph();
    const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
    expectCode(
      await l.api('PATCH', `/products/${g.product.id}`, { body: doc('products', { metadata: tooMany }) }),
      422,
      'METADATA_TOO_LARGE',
    );
    expectCode(
      await l.api('PATCH', `/products/${g.product.id}`, { body: doc('products', { metadata: { big: 'x'.repeat(17_000) } }) }),
      422,
      'METADATA_TOO_LARGE',
    );
    expectCode(await l.api('PATCH', `/products/${g.product.id}`, { body: doc('products', { metadata: [1] }) }), 400);
    expect((await l.api('GET', `/products/${g.product.id}`)).body.data.attributes.metadata).toEqual({});
  });
});

describe('token permissions', () => {
  const many = Array.from({ length: 40_000 }, () => 'license.read');

  it('refuses 40,000 permissions on environment, product and license tokens with 400, generating nothing', async () => {
    const g = await l.graph();
    const env = await newEnvironment(account, 'ISOLATED');
    const paths: [string, string | undefined][] = [
      [`/environments/${env.id}/tokens`, env.code],
      [`/products/${g.product.id}/tokens`, undefined],
      [`/licenses/${g.license.id}/tokens`, undefined],
    ];
    const globalTokens = async () => (await l.api('GET', '/tokens?page[size]=1')).body.links.meta.count as number;
    const before = await globalTokens();
    for (const [path, environment] of paths) {
      expectError(await l.api('POST', path, { environment, body: doc('tokens', { permissions: many }) }), 400, {
        code: 'PARAMETER_INVALID',
        source: { pointer: '/data/attributes/permissions' },
      });
    }
    expect((await l.api('GET', `/environments/${env.id}/tokens`)).body.data).toEqual([]);
    // The product and license tokens are global: none was made either.
    expect(await globalTokens()).toBe(before);
  });

  it('keeps each permission once', async () => {
    const g = await l.graph();
    const reply = await l.api('POST', `/licenses/${g.license.id}/tokens`, {
      body: doc('tokens', { permissions: ['license.read', 'machine.read', 'license.read', 'machine.read'] }),
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.attributes.permissions).toEqual(['license.read', 'machine.read']);
  });
});

describe('webhook subscriptions', () => {
  const endpoint = (attributes: Record<string, unknown>) => doc('webhook-endpoints', { url: 'https://127.0.0.1:9/hooks', ...attributes });
  const many = Array.from({ length: 30_000 }, (_, i) => `user.kind-${i}`);

  it('refuses 30,000 subscriptions on create and update with 400, changing nothing', async () => {
    expectError(await l.api('POST', '/webhook-endpoints', { body: endpoint({ subscriptions: many }) }), 400, {
      code: 'PARAMETER_INVALID',
      source: { pointer: '/data/attributes/subscriptions' },
    });
    const made = await l.api('POST', '/webhook-endpoints', { body: endpoint({ subscriptions: ['user.created'] }) });
    expect(made.status).toBe(201);
    const id = made.body.data.id as string;
    expectError(await l.api('PATCH', `/webhook-endpoints/${id}`, { body: doc('webhook-endpoints', { subscriptions: many }) }), 400, {
      source: { pointer: '/data/attributes/subscriptions' },
    });
    expect((await l.api('GET', `/webhook-endpoints/${id}`)).body.data.attributes.subscriptions).toEqual(['user.created']);
  });

  it('accepts * and every event kind the service emits; refuses an unknown kind with 422 and its pointer', async () => {
    const kinds = [
      '*',
      'license.validation.succeeded',
      'license.suspended',
      'token.generated',
      'user.password-reset',
      'webhook-endpoint.updated',
      'component.deleted',
      'account.updated',
    ];
    const made = await l.api('POST', '/webhook-endpoints', { body: endpoint({ subscriptions: [...kinds, ...kinds] }) });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data.attributes.subscriptions).toEqual(kinds);
    expectError(
      await l.api('PATCH', `/webhook-endpoints/${made.body.data.id}`, {
        body: doc('webhook-endpoints', { subscriptions: ['user.created', 'user.exploded'] }),
      }),
      422,
      {
        code: 'SUBSCRIPTIONS_INVALID',
        source: { pointer: '/data/attributes/subscriptions/1' },
      },
    );
  });
});

describe('request bodies over 1 MB', () => {
  it('are refused with 413 PAYLOAD_TOO_LARGE in the API’s error format; the server serves on', async () => {
    const raw = JSON.stringify(doc('users', { email: 'big@body.example', firstName: 'x'.repeat(1024 * 1024) }));
    const reply = await call('POST', `${account.path}/users`, {
      token: account.adminToken,
      raw,
      headers: { 'content-type': 'application/vnd.api+json' },
    });
    expectError(reply, 413, { code: 'PAYLOAD_TOO_LARGE' });
    expect(reply.headers.get('content-type')).toBe('application/vnd.api+json');
    // Exactly 1 MB is read: refused for its content, not its size.
    const fits = JSON.stringify(doc('users', { email: 'big@body.example', firstName: '' }));
    const padded = fits.replace('"firstName":""', `"firstName":"${'x'.repeat(1024 * 1024 - fits.length)}"`);
    expect(Buffer.byteLength(padded)).toBe(1024 * 1024);
    expectCode(
      await call('POST', `${account.path}/users`, {
        token: account.adminToken,
        raw: padded,
        headers: { 'content-type': 'application/vnd.api+json' },
      }),
      422,
    );
    expect((await l.api('GET', '/users')).status).toBe(200);
  });
});

describe('requests the HTTP parser refuses', () => {
  it('answers a head over 16 KB with 431 HEADERS_TOO_LARGE in the API’s error format; the server serves on', async () => {
    const reply = await call('GET', `${account.path}/users?filter=${'x'.repeat(20 * 1024)}`, { token: account.adminToken });
    expectError(reply, 431, { code: 'HEADERS_TOO_LARGE' });
    expect(reply.headers.get('content-type')).toBe('application/vnd.api+json');
    expect((await l.api('GET', '/users')).status).toBe(200);
  });

  it('answers bytes that are not HTTP with 400 REQUEST_MALFORMED in the API’s error format', async () => {
    const { hostname, port } = new URL(stack().api);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write('GET /v1 HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('utf8');
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head.toLowerCase()).toContain('content-type: application/vnd.api+json');
    expect(JSON.parse(body).errors[0]).toMatchObject({ code: 'REQUEST_MALFORMED', title: 'Bad request' });
  });
});
