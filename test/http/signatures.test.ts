/**
 * Signed answers over HTTP (docs/signatures.md): answers of every kind, once the account is
 * known, verify with tweetnacl (test/support/signed.ts) and with the client recipe
 * (docs/examples/verify.mjs); a changed body, date, path, query or Host does not; the target
 * and Host are signed as sent; Keygen-Accept-Signature; and an account without a key, which
 * gets one on its first use, however many requests race for it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import nacl from 'tweetnacl';
import { beforeAll, describe, expect, it } from 'vitest';
import { type StoredSigningKey, signingKeyOf } from '#shared/auth/signing-key.ts';
import { createAccount } from '#shared/resources/accounts/service.ts';
import { db, getTable } from '#shared/store/client.ts';
import { accountKey } from '#shared/store/keys.ts';
import { getItem } from '#shared/store/records.ts';
import { verifyAnswer as recipeVerify } from '../../docs/examples/verify.mjs';
import { call, expectError, newAccount, newUser, type TestAccount } from '../support/client.ts';
import { doc, licensing } from '../support/licensing.ts';
import { type SignedAnswer, verifyAnswer } from '../support/signed.ts';
import { api, stack } from '../support/stack.ts';

const EMPTY_DIGEST = 'sha-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=';
const CACHE_CONTROL = 'no-transform, no-store, max-age=0';
const SIGNATURE_HEADERS = ['keygen-signature', 'digest', 'keygen-date', 'keygen-digest'];

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let publicKey: string;
let product: { id: string };
let licenseKey: string;
let userToken: string;

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
  const shown = await call('GET', account.path, { token: account.adminToken });
  publicKey = Buffer.from(shown.body.data.meta.keys.ed25519, 'base64').toString('utf8');
  const graph = await l.graph();
  product = graph.product;
  licenseKey = graph.license.attributes.key;
  userToken = (await newUser(account)).token;
});

/** One request over HTTP, its answer kept byte for byte. */
async function fetchAnswer(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<SignedAnswer> {
  const headers: Record<string, string> = { accept: 'application/vnd.api+json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (options.body !== undefined) headers['content-type'] ??= 'application/vnd.api+json';
  const response = await api(path, { method, headers, body });
  return {
    method,
    url: new URL(response.url),
    status: response.status,
    headers: response.headers,
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** A request sent with node:http: the target and the Host header go out exactly as given. */
function rawRequest(target: string, headers: Record<string, string>): Promise<SignedAnswer & { sent: { target: string; host: string } }> {
  const { hostname, port } = new URL(stack().api);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname, port, path: target, method: 'GET', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const received = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') received.set(name, value);
        resolve({
          method: 'GET',
          url: new URL(`${stack().api}${target}`),
          status: response.statusCode ?? 0,
          headers: received,
          body: Buffer.concat(chunks),
          sent: { target, host: headers.host ?? '' },
        });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Whether the answer's signature is over exactly this target and Host (tweetnacl). */
function signedOver(answer: SignedAnswer, target: string, host: string, key = publicKey): boolean {
  const fields = Object.fromEntries(
    [...(answer.headers.get('keygen-signature') ?? '').matchAll(/([a-z]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
  );
  const message = [
    `(request-target): ${answer.method.toLowerCase()} ${target}`,
    `host: ${host}`,
    `date: ${answer.headers.get('date')}`,
    `digest: ${answer.headers.get('digest')}`,
  ].join('\n');
  return nacl.sign.detached.verify(Buffer.from(message), Buffer.from(fields.signature ?? '', 'base64'), Buffer.from(key, 'hex'));
}

/** Verified both ways: the test client's check and the client recipe. */
function expectVerified(answer: SignedAnswer, key = publicKey, accountId = account.id) {
  expect(verifyAnswer(answer, key)).toBeUndefined();
  expect(() => recipeVerify(answer, { publicKey: Buffer.from(key).toString('base64'), accountId })).not.toThrow();
  expect(answer.headers.get('keygen-signature')).toContain(`keyid="${accountId}"`);
}

function expectUnsigned(answer: SignedAnswer) {
  for (const name of SIGNATURE_HEADERS) expect(answer.headers.get(name), name).toBeNull();
}

describe('every answer once the account is known is signed, and verifies', () => {
  const admin = () => ({ token: account.adminToken });
  const families: [string, number, () => Promise<SignedAnswer>][] = [
    ['GET a record', 200, () => fetchAnswer('GET', `${account.path}/products/${product.id}`, admin())],
    ['GET a list', 200, () => fetchAnswer('GET', `${account.path}/products?page[size]=1&page[number]=1`, admin())],
    ['GET the account by slug', 200, () => fetchAnswer('GET', `/v1/accounts/${account.slug}`, admin())],
    [
      'POST a record',
      201,
      () => fetchAnswer('POST', `${account.path}/products`, { ...admin(), body: doc('products', { name: 'Signed' }) }),
    ],
    ['DELETE a record', 204, async () => fetchAnswer('DELETE', `${account.path}/products/${(await l.product()).id}`, admin())],
    ['a body refused', 400, () => fetchAnswer('POST', `${account.path}/products`, { ...admin(), body: doc('products', {}) })],
    ['no valid bearer', 401, () => fetchAnswer('GET', `${account.path}/products`, { token: 'not-a-token' })],
    ['a bearer refused', 403, () => fetchAnswer('GET', account.path, { token: userToken })],
    ['a record not found', 404, () => fetchAnswer('GET', `${account.path}/products/${randomUUID()}`, admin())],
    [
      'a rule broken',
      422,
      () => fetchAnswer('POST', `${account.path}/products`, { ...admin(), body: doc('products', { name: 'n'.repeat(256) }) }),
    ],
    [
      'validate-key without a bearer',
      200,
      () => fetchAnswer('POST', `${account.path}/licenses/actions/validate-key`, { body: { meta: { key: licenseKey } } }),
    ],
  ];

  it.each(families)('%s (%i)', async (_name, status, send) => {
    const answer = await send();
    expect(answer.status, answer.body.toString()).toBe(status);
    expectVerified(answer);
    expect(answer.headers.get('date')).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(answer.headers.get('keygen-date')).toBe(answer.headers.get('date'));
    expect(answer.headers.get('keygen-digest')).toBe(answer.headers.get('digest'));
    expect(answer.headers.get('cache-control')).toBe(CACHE_CONTROL);
    if (status === 204) {
      expect(answer.body.length).toBe(0);
      expect(answer.headers.get('digest')).toBe(EMPTY_DIGEST);
    }
  });

  it("shows the account's public key as meta.keys.ed25519, the key its item holds", async () => {
    const item = await getItem(accountKey(account.id));
    const stored = item?.signingKey as StoredSigningKey;
    expect(stored.publicKey).toMatch(/^[0-9a-f]{64}$/);
    expect(publicKey).toBe(stored.publicKey);
    const shown = await call('GET', `/v1/accounts/${account.slug}`, { token: account.adminToken });
    expect(shown.body.data.meta).toEqual({ keys: { ed25519: Buffer.from(stored.publicKey).toString('base64') } });
  });
});

describe('what the signature covers', () => {
  let answer: SignedAnswer;
  beforeAll(async () => {
    answer = await fetchAnswer('GET', `${account.path}/products?page[size]=1&page[number]=1`, { token: account.adminToken });
    expectVerified(answer);
  });
  const changed = (headers: Record<string, string>) => {
    const copy = new Headers(answer.headers);
    for (const [name, value] of Object.entries(headers)) copy.set(name, value);
    return copy;
  };
  const refusedBoth = (altered: SignedAnswer) => {
    expect(verifyAnswer(altered, publicKey)).toBe('the signature does not verify');
    expect(() => recipeVerify(altered, { publicKey })).toThrow(/does not verify/);
  };

  it('the body: a changed body fails its Digest, and with a Digest to match, the signature', () => {
    const body = Buffer.from(answer.body.toString('utf8').replace('"products"', '"product5"'));
    expect(body.equals(answer.body)).toBe(false);
    expect(verifyAnswer({ ...answer, body }, publicKey)).toMatch(/^Digest/);
    const digest = `sha-256=${createHash('sha256').update(body).digest('base64')}`;
    refusedBoth({ ...answer, body, headers: changed({ digest, 'keygen-digest': digest }) });
  });

  it('the Date', () => {
    const date = new Date(Date.parse(answer.headers.get('date') ?? '') + 1000).toUTCString();
    refusedBoth({ ...answer, headers: changed({ date, 'keygen-date': date }) });
  });

  it('the method, path and query', () => {
    refusedBoth({ ...answer, method: 'HEAD' });
    refusedBoth({ ...answer, url: new URL(answer.url.href.replace('/products?', '/policies?')) });
    refusedBoth({ ...answer, url: new URL(answer.url.href.replace('page[size]=1', 'page[size]=2')) });
    refusedBoth({ ...answer, url: new URL(answer.url.href.replace(/\?.*$/, '')) });
  });

  it('the Host', () => {
    const url = new URL(answer.url);
    url.hostname = url.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    refusedBoth({ ...answer, url });
  });
});

describe('the target and Host are signed as sent', () => {
  it('a percent-encoded query, byte for byte (not decoded)', async () => {
    const encoded = await fetchAnswer('GET', `${account.path}/products?page%5Bsize%5D=1&page%5Bnumber%5D=1`, { token: account.adminToken });
    expect(encoded.status).toBe(200);
    expect(encoded.url.search).toBe('?page%5Bsize%5D=1&page%5Bnumber%5D=1');
    expectVerified(encoded);
    const host = encoded.url.host;
    expect(signedOver(encoded, `${account.path}/products?page%5Bsize%5D=1&page%5Bnumber%5D=1`, host)).toBe(true);
    expect(signedOver(encoded, `${account.path}/products?page[size]=1&page[number]=1`, host)).toBe(false);
    const plain = await fetchAnswer('GET', `${account.path}/products?page[size]=1&page[number]=1`, { token: account.adminToken });
    expect(signedOver(plain, `${account.path}/products?page[size]=1&page[number]=1`, host)).toBe(true);
    expect(signedOver(plain, `${account.path}/products?page%5Bsize%5D=1&page%5Bnumber%5D=1`, host)).toBe(false);
  });

  it('the path as sent: the account named by its slug, not by its id', async () => {
    const answer = await fetchAnswer('GET', `/v1/accounts/${account.slug}/products/${product.id}`, { token: account.adminToken });
    expect(answer.status).toBe(200);
    expect(signedOver(answer, `/v1/accounts/${account.slug}/products/${product.id}`, answer.url.host)).toBe(true);
    expect(signedOver(answer, `${account.path}/products/${product.id}`, answer.url.host)).toBe(false);
  });

  it('a query with bytes a URL parser would rewrite, as node:http sends them', async () => {
    // A quote in the query goes out raw from node:http; a WHATWG URL would write it %27.
    const target = `${account.path}/products?page[size]=1&page[number]=1&filter='x'`;
    const raw = await rawRequest(target, { host: new URL(stack().api).host, authorization: `Bearer ${account.adminToken}` });
    expect(raw.headers.get('keygen-signature')).not.toBeNull();
    expect(signedOver(raw, target, raw.sent.host)).toBe(true);
    expect(signedOver(raw, target.replaceAll("'", '%27'), raw.sent.host)).toBe(false);
  });

  it('the Host header as received', async () => {
    const target = `${account.path}/products/${product.id}`;
    const answer = await rawRequest(target, { host: 'licensing.example.test', authorization: `Bearer ${account.adminToken}` });
    expect(answer.status).toBe(200);
    expect(signedOver(answer, target, 'licensing.example.test')).toBe(true);
    expect(signedOver(answer, target, new URL(stack().api).host)).toBe(false);
    expect(() => recipeVerify(answer, { publicKey, host: 'licensing.example.test' })).not.toThrow();
    expect(() => recipeVerify(answer, { publicKey })).toThrow(/does not verify/);
  });
});

describe('answers under an existing account that no operation gives are signed too', () => {
  const admin = () => ({ token: account.adminToken });
  const unmatched: [string, () => Promise<SignedAnswer>][] = [
    ['a path no route matches, the account by id', () => fetchAnswer('GET', `${account.path}/no-such-things`, admin())],
    ['a path no route matches, the account by slug', () => fetchAnswer('GET', `/v1/accounts/${account.slug}/no-such-things`, admin())],
    // What another API would answer 405: API Gateway, and the local router, send it to the fallback.
    ['a method the path has no route for', () => fetchAnswer('PUT', `${account.path}/products`, admin())],
    ['a method the account itself has no route for', () => fetchAnswer('DELETE', `/v1/accounts/${account.slug}`, admin())],
    ['OPTIONS (no CORS preflight is configured)', () => fetchAnswer('OPTIONS', `${account.path}/products`)],
    ['a path past a trailing slash', () => fetchAnswer('GET', `${account.path}/`)],
  ];

  it.each(unmatched)('%s: 404, signed with the account’s key', async (_name, send) => {
    const answer = await send();
    expect(answer.status, answer.body.toString()).toBe(404);
    expect(JSON.parse(answer.body.toString()).errors).toEqual([
      expect.objectContaining({ code: 'NOT_FOUND', detail: expect.stringMatching(/^No route matches /) }),
    ]);
    expectVerified(answer);
    expect(answer.headers.get('cache-control')).toBe(CACHE_CONTROL);
  });

  it('a body of another media type (400 MIME_TYPE_INVALID), refused before the account step', async () => {
    const mime = await fetchAnswer('POST', `${account.path}/products`, {
      token: account.adminToken,
      raw: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(mime.status).toBe(400);
    expect(JSON.parse(mime.body.toString()).errors[0].code).toBe('MIME_TYPE_INVALID');
    expectVerified(mime);
  });
});

describe('answers for no existing account, or given before any function, are unsigned', () => {
  it('an unknown account (404), even with a Keygen-Accept-Signature it could not meet', async () => {
    const answer = await fetchAnswer('GET', `/v1/accounts/${randomUUID()}/products`, {
      token: account.adminToken,
      headers: { 'keygen-accept-signature': 'algorithm="rsa-sha256"' },
    });
    expect(answer.status).toBe(404);
    expectUnsigned(answer);
  });

  it('a path no route matches under an unknown account: the same 404 as under a known one, unsigned', async () => {
    for (const named of [randomUUID(), `no-such-account-${randomUUID().slice(0, 8)}`]) {
      const answer = await fetchAnswer('GET', `/v1/accounts/${named}/no-such-things`, { token: account.adminToken });
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body.toString()).errors).toEqual([
        { title: 'Not found', detail: `No route matches GET /v1/accounts/${named}/no-such-things`, code: 'NOT_FOUND' },
      ]);
      expectUnsigned(answer);
    }
  });

  it('a path no route matches outside any account', async () => {
    const answer = await fetchAnswer('GET', '/v1/no-such-things');
    expect(answer.status).toBe(404);
    expectUnsigned(answer);
  });

  it('a body too large (413), which the local server refuses before any function, as API Gateway does past 10 MB', async () => {
    const large = await fetchAnswer('POST', `${account.path}/products`, {
      token: account.adminToken,
      raw: JSON.stringify({ data: { type: 'products', attributes: { name: 'x'.repeat(1_100_000) } } }),
      headers: { 'content-type': 'application/vnd.api+json' },
    });
    expect(large.status).toBe(413);
    expectUnsigned(large);
  });

  it('the hosted password-reset form, a static page that reads no account', async () => {
    const answer = await fetchAnswer('GET', `${account.path}/password-reset`, { headers: { accept: 'text/html' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expectUnsigned(answer);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });
});

describe('Keygen-Accept-Signature', () => {
  const send = (header: string) =>
    call('GET', `${account.path}/products/${product.id}`, {
      token: account.adminToken,
      headers: { 'keygen-accept-signature': header },
    });

  it.each([
    ['the algorithm', () => 'algorithm="ed25519"'],
    ["the account's key and the algorithm", () => `keyid="${account.id}", algorithm="ed25519"`],
  ])('accepts %s, and signs with ed25519', async (_name, header) => {
    const reply = await send(header());
    expect(reply.status).toBe(200);
    expect(reply.headers.get('keygen-signature')).toContain('algorithm="ed25519"');
  });

  it.each([
    ['a malformed header', () => 'ed25519'],
    ['another algorithm', () => 'algorithm="rsa-pss-sha256"'],
    ["another account's key", () => `keyid="${randomUUID()}", algorithm="ed25519"`],
  ])('refuses %s: 400 ACCEPT_SIGNATURE_INVALID, itself signed', async (_name, header) => {
    // call() has verified the refusal's signature like every other answer's.
    const reply = await send(header());
    expectError(reply, 400, { code: 'ACCEPT_SIGNATURE_INVALID', source: { header: 'Keygen-Accept-Signature' } });
    expect(reply.headers.get('keygen-signature')).toContain(`keyid="${account.id}"`);
  });
});

/** An account as the CLI makes it, then stripped of its key as an account made before keys existed. */
async function keylessAccount() {
  const slug = `t-${randomUUID().slice(0, 12)}`;
  const made = await createAccount({ slug, name: `Keyless ${slug}`, email: `admin@${slug}.example`, password: 'correct horse battery' });
  await db().send(new UpdateCommand({ TableName: getTable(), Key: accountKey(made.account.id), UpdateExpression: 'REMOVE signingKey' }));
  expect((await getItem(accountKey(made.account.id)))?.signingKey).toBeUndefined();
  return { id: made.account.id, token: made.token, madeWith: made.account.signingKey?.publicKey };
}

describe('an account without a key', () => {
  it('gets one on first use: 20 concurrent first requests and another process racing all end with the one key stored', async () => {
    const keyless = await keylessAccount();
    const path = `/v1/accounts/${keyless.id}`;
    const requests = Array.from({ length: 20 }, (_, i) =>
      fetchAnswer('GET', i % 2 === 0 ? `${path}/products` : path, { token: keyless.token }),
    );
    // This test process provisions too, as a second container would: the first writer wins.
    const [answers, here] = await Promise.all([Promise.all(requests), signingKeyOf({ id: keyless.id })]);
    const stored = (await getItem(accountKey(keyless.id)))?.signingKey as StoredSigningKey;
    expect(stored.publicKey).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.publicKey).not.toBe(keyless.madeWith);
    expect(here.publicKey).toBe(stored.publicKey);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expectVerified(answer, stored.publicKey, keyless.id);
    }
    const shown = await call('GET', path, { token: keyless.token });
    expect(shown.body.data.meta.keys.ed25519).toBe(Buffer.from(stored.publicKey).toString('base64'));
    expect((await getItem(accountKey(keyless.id)))?.signingKey).toEqual(stored);
  });

  it('a container that read the account before the key was written loses the write and uses the stored key', async () => {
    const keyless = await keylessAccount();
    const first = await fetchAnswer('GET', `/v1/accounts/${keyless.id}/products`, { token: keyless.token });
    const stored = (await getItem(accountKey(keyless.id)))?.signingKey as StoredSigningKey;
    expectVerified(first, stored.publicKey, keyless.id);
    // This process read the account without a key (no `signingKey`): its write is refused.
    const late = await signingKeyOf({ id: keyless.id });
    expect(late.publicKey).toBe(stored.publicKey);
    expect(nacl.sign.detached.verify(Buffer.from('m'), late.sign('m'), Buffer.from(stored.publicKey, 'hex'))).toBe(true);
    expect((await getItem(accountKey(keyless.id)))?.signingKey).toEqual(stored);
  });
});

describe('a key that cannot be used', () => {
  it('leaves the answer unsigned but whole: the request does not fail', async () => {
    const keyless = await keylessAccount();
    const other = await keylessAccount();
    // The sealed half of another account's key: it is bound to that account and does not unseal here.
    const foreign = (await signingKeyOf({ id: other.id })).stored;
    await db().send(
      new UpdateCommand({
        TableName: getTable(),
        Key: accountKey(keyless.id),
        UpdateExpression: 'SET signingKey = :key',
        ExpressionAttributeValues: { ':key': foreign },
      }),
    );
    const answer = await fetchAnswer('GET', `/v1/accounts/${keyless.id}/products`, { token: keyless.token });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString()).data).toEqual(expect.any(Array));
    expectUnsigned(answer);
    expect(answer.headers.get('cache-control')).toBe(CACHE_CONTROL);
  });
});
