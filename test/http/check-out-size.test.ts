/**
 * The largest check-outs (docs/rules.md §20.5): a file carries at most MAX_DATASET_BYTES of
 * records, so that its answer stays under what Lambda may send. A license holding the most
 * entitlements it may (MAX_ATTACHMENTS), each with metadata at its limit: its file with them is
 * refused with 422 CHECKOUT_FILE_TOO_LARGE, by POST and GET, for the license and its machine,
 * writing and emitting nothing; its file without them is answered and verifies. The largest file
 * that fits, found to the entitlement, is answered and verifies (the local server, like Lambda,
 * fails a response over 6 MB); one entitlement more is refused.
 *
 * Its policy could hold as many again, which the file would carry too: past MAX_DATASET_BYTES
 * (some 180 such entitlements) a file is refused the same way however much larger it would be,
 * and another thousand records made over HTTP would only double the file's time.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DATASET_BYTES } from '#shared/resources/check-out/certificate.ts';
import { MAX_ATTACHMENTS } from '#shared/resources/entitlements/holders.ts';
import { METADATA_MAX_BYTES } from '#shared/resources/rules.ts';
import { datasetText, parseCertificate, publicKeyFromAccount, readDataset, verifyCertificate } from '../support/certificates.ts';
import { type CallOptions, call, expectError, newAccount, type TestAccount } from '../support/client.ts';
import { doc, eventPayloads, licensing } from '../support/licensing.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { api } from '../support/stack.ts';

let account: TestAccount;
let l: ReturnType<typeof licensing>;
let receiver: Receiver;
let publicKey: string;

type Made = Awaited<ReturnType<ReturnType<typeof licensing>['license']>>;
/** MAX_ATTACHMENTS entitlements, each with the largest metadata. */
let held: string[];

/** Requests under way at once while the entitlements are made: enough to keep the local stack busy on two cores. */
const CONCURRENCY = 4;
/** Entitlements named by one attach (shared/resources/entitlements/operations.ts). */
const ATTACH_BATCH = 100;

/** `{"blob":"xx..."}`, exactly METADATA_MAX_BYTES of JSON: the largest metadata a record may hold. */
const LARGEST_METADATA = { blob: 'x'.repeat(METADATA_MAX_BYTES - '{"blob":""}'.length) };

/**
 * `count` entitlements with the largest metadata, made CONCURRENCY at a time; their ids in order.
 * Made by plain requests: the answers' signatures and descriptions are checked by the other tests
 * (client.ts checks each of its calls), and thousands of checks would only slow the run.
 */
async function largeEntitlements(count: number): Promise<string[]> {
  const made: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) {
      // Codes of one length: every entitlement's document is as large as the others'.
      const code = `e-${randomUUID()}`;
      const response = await api(`${account.path}/entitlements`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.adminToken}`, 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify(doc('entitlements', { name: code, code, metadata: LARGEST_METADATA })),
      });
      const body = (await response.json()) as { data: { id: string } };
      expect(response.status, JSON.stringify(body)).toBe(201);
      made[index] = body.data.id;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return made;
}

async function attach(path: string, ids: readonly string[]) {
  for (let start = 0; start < ids.length; start += ATTACH_BATCH) {
    const data = ids.slice(start, start + ATTACH_BATCH).map((id) => ({ type: 'entitlements', id }));
    const reply = await l.api('POST', `${path}/entitlements`, { body: { data } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  }
}

beforeAll(async () => {
  account = await newAccount();
  l = licensing(account);
  // Only the check-outs' events: thousands of entitlement events would only slow the run.
  receiver = await startReceiver();
  const subscriptions = ['license.checked-out', 'machine.checked-out'];
  const endpoint = await l.api('POST', '/webhook-endpoints', { body: doc('webhook-endpoints', { url: receiver.url, subscriptions }) });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  publicKey = publicKeyFromAccount((await call('GET', account.path, { token: account.adminToken })).body.data.meta.keys.ed25519);
  held = await largeEntitlements(MAX_ATTACHMENTS);
});
afterAll(() => receiver.close());

const checkOut = (method: 'POST' | 'GET', type: 'licenses' | 'machines', id: string, query: string, options: CallOptions = {}) =>
  call(method, `${account.path}/${type}/${id}/actions/check-out?${query}`, { token: account.adminToken, ...options });

/** The certificate of a 200 answer, POST's or GET's, verified with the account's key. */
function certificateOf(reply: { status: number; body: any }) {
  // The start of the answer: a file answered when it should not be is megabytes long.
  expect(reply.status, (typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)).slice(0, 500)).toBe(200);
  const parsed = parseCertificate(typeof reply.body === 'string' ? reply.body : reply.body.data.attributes.certificate);
  expect(verifyCertificate(parsed, publicKey)).toBe(true);
  return parsed;
}

const lastCheckOut = async (type: 'licenses' | 'machines', id: string) =>
  (await l.api('GET', `/${type}/${id}`)).body.data.attributes.lastCheckOut;

describe('a license holding the most entitlements it may', () => {
  let license: Made;
  let machine: Made;
  beforeAll(async () => {
    const product = await l.product();
    license = await l.license((await l.policy(product.id)).id);
    await attach(`/licenses/${license.id}`, held);
    machine = await l.machine(license.id);
  });

  it('holds MAX_ATTACHMENTS, each with the largest metadata, and may hold no more', async () => {
    const page = await l.api('GET', `/licenses/${license.id}/entitlements?page[size]=1`);
    expect(page.body.links.meta.count).toBe(MAX_ATTACHMENTS);
    expect(Buffer.byteLength(JSON.stringify(page.body.data[0].attributes.metadata))).toBe(METADATA_MAX_BYTES);
    const [another] = await largeEntitlements(1);
    const more = await l.api('POST', `/licenses/${license.id}/entitlements`, { body: { data: [{ type: 'entitlements', id: another }] } });
    expectError(more, 422, { code: 'ENTITLEMENTS_LIMIT_EXCEEDED' });
  });

  it('422 CHECKOUT_FILE_TOO_LARGE with its entitlements, license and machine alike; nothing written or emitted', async () => {
    const refused = { code: 'CHECKOUT_FILE_TOO_LARGE', source: { parameter: 'include' } };
    // Each reads the thousand entitlements (16 MB): one of each method and kind, plain and encrypted.
    const meta = { encrypt: true, include: ['entitlements', 'product'] };
    expectError(await checkOut('POST', 'licenses', license.id, '', { body: { meta } }), 422, {
      ...refused,
      detail: new RegExp(
        `^The license file would carry \\d+ bytes of records, more than the ${MAX_DATASET_BYTES} a file may: include fewer records \\(asked: entitlements, product\\)`,
      ),
    });
    expectError(await checkOut('GET', 'machines', machine.id, 'include=license.entitlements'), 422, refused);
    expect(await lastCheckOut('licenses', license.id)).toBeNull();
    expect(await lastCheckOut('machines', machine.id)).toBeNull();
    expect(await eventPayloads(account, 'license.checked-out', license.id)).toEqual([]);
    expect(await eventPayloads(account, 'machine.checked-out', machine.id)).toEqual([]);
  });

  it('answers its file without the entitlements, which verifies', async () => {
    const file = certificateOf(await checkOut('POST', 'licenses', license.id, 'include=product,policy'));
    expect((await readDataset(file)).included.map((record: any) => record.type)).toEqual(['products', 'policies']);
    certificateOf(await checkOut('GET', 'machines', machine.id, 'include=license'));
  });
});

describe('the largest file that fits', () => {
  it('is answered and verifies by POST and GET, encrypted too; one entitlement more is refused and writes nothing', async () => {
    const product = await l.product();
    const license = await l.license((await l.policy(product.id)).id);
    const path = `/licenses/${license.id}`;
    // The dataset with one entitlement and with two: what one more adds, the same for each.
    const datasetBytes = async () =>
      Buffer.byteLength(await datasetText(certificateOf(await checkOut('POST', 'licenses', license.id, 'include=entitlements'))));
    await attach(path, held.slice(0, 1));
    const one = await datasetBytes();
    await attach(path, held.slice(1, 2));
    const each = (await datasetBytes()) - one;
    const most = 1 + Math.floor((MAX_DATASET_BYTES - one) / each);
    expect(most).toBeLessThan(MAX_ATTACHMENTS);
    await attach(path, held.slice(2, most));

    const fits = certificateOf(await checkOut('POST', 'licenses', license.id, 'include=entitlements'));
    const text = await datasetText(fits);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_DATASET_BYTES);
    expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_DATASET_BYTES - each);
    expect(JSON.parse(text).included).toHaveLength(most);
    const secret = license.attributes.key;
    expect(
      (await readDataset(certificateOf(await checkOut('GET', 'licenses', license.id, 'include=entitlements&encrypt=true')), secret))
        .included,
    ).toHaveLength(most);

    await attach(path, held.slice(most, most + 1));
    const before = await lastCheckOut('licenses', license.id);
    const events = (await eventPayloads(account, 'license.checked-out', license.id)).length;
    for (const method of ['POST', 'GET'] as const) {
      expectError(await checkOut(method, 'licenses', license.id, 'include=entitlements'), 422, { code: 'CHECKOUT_FILE_TOO_LARGE' });
    }
    expect(await lastCheckOut('licenses', license.id)).toBe(before);
    expect(await eventPayloads(account, 'license.checked-out', license.id)).toHaveLength(events);
  });
});
