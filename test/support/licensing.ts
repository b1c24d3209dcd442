/**
 * Fixtures of the licensing graph for black-box tests: each helper makes one record over HTTP
 * (as the admin unless told otherwise) and fails loudly when the service refuses it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { type CallOptions, call, newAccount, type Reply, type TestAccount } from './client.ts';
import { type Receiver, startReceiver } from './receiver.ts';

type Options = Pick<CallOptions, 'token' | 'environment' | 'authorization'>;
type Attributes = Record<string, unknown>;

export const ref = (type: string, id: string) => ({ data: { type, id } });

export const doc = (type: string, attributes: Attributes, relationships?: Record<string, unknown>) => ({
  data: { type, attributes, ...(relationships ? { relationships } : {}) },
});

/** The error code of a refused request, with its status checked. */
export function expectCode(reply: Reply, status: number, code?: string) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  if (code !== undefined) expect(reply.body.errors[0].code, JSON.stringify(reply.body)).toBe(code);
  return reply.body?.errors?.[0];
}

export function licensing(account: TestAccount) {
  const api = (method: string, path: string, options: Options & { body?: unknown } = {}) =>
    call(method, `${account.path}${path}`, {
      token: options.authorization ? undefined : (options.token ?? account.adminToken),
      ...options,
    });

  async function make(path: string, body: unknown, options: Options = {}) {
    const reply = await api('POST', path, { ...options, body });
    if (reply.status !== 201) throw new Error(`POST ${path} → ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data as { id: string; type: string; attributes: any; relationships: any; links: { self: string } };
  }

  const product = (attributes: Attributes = {}, options: Options = {}) =>
    make('/products', doc('products', { name: `Product ${randomUUID().slice(0, 6)}`, ...attributes }), options);
  const policy = (productId: string, attributes: Attributes = {}, options: Options = {}) =>
    make('/policies', doc('policies', { name: 'Policy', ...attributes }, { product: ref('products', productId) }), options);
  const license = (policyId: string, attributes: Attributes = {}, options: Options & { owner?: string } = {}) =>
    make(
      '/licenses',
      doc('licenses', attributes, { policy: ref('policies', policyId), ...(options.owner ? { owner: ref('users', options.owner) } : {}) }),
      options,
    );
  const machine = (licenseId: string, attributes: Attributes = {}, options: Options & { owner?: string } = {}) =>
    make(
      '/machines',
      doc(
        'machines',
        { fingerprint: `fp-${randomUUID()}`, ...attributes },
        { license: ref('licenses', licenseId), ...(options.owner ? { owner: ref('users', options.owner) } : {}) },
      ),
      options,
    );
  const component = (machineId: string, fingerprint = `c-${randomUUID()}`, options: Options & { attributes?: Attributes } = {}) =>
    make(
      '/components',
      doc(
        'components',
        { fingerprint, name: `Part ${fingerprint.slice(0, 12)}`, ...options.attributes },
        { machine: ref('machines', machineId) },
      ),
      options,
    );

  async function token(path: string, options: Options = {}) {
    const reply = await api('POST', path, options);
    if (reply.status !== 200) throw new Error(`POST ${path} → ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.data.attributes.token as string;
  }
  const productToken = (productId: string, options: Options = {}) => token(`/products/${productId}/tokens`, options);
  const licenseToken = (licenseId: string, options: Options = {}) => token(`/licenses/${licenseId}/tokens`, options);

  /** A product, a policy (with `policyAttributes`), a license (owned by `owner`) and one machine. */
  async function graph(options: Options & { policy?: Attributes; license?: Attributes; owner?: string } = {}) {
    const p = await product({}, options);
    const pol = await policy(p.id, options.policy, options);
    const lic = await license(pol.id, options.license, { ...options, owner: options.owner });
    const m = await machine(lic.id, {}, options);
    return { product: p, policy: pol, license: lic, machine: m };
  }

  return { api, product, policy, license, machine, component, productToken, licenseToken, graph };
}

/** The ids of a list reply's data, in order. */
export const ids = (reply: Reply) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return (reply.body.data as { id: string }[]).map((record) => record.id);
};

/**
 * A fresh account with its licensing helpers and a receiver of every webhook event it emits
 * (an endpoint subscribed to all). Close the receiver after the file.
 */
export async function listeningAccount(): Promise<{ account: TestAccount; l: ReturnType<typeof licensing>; receiver: Receiver }> {
  const account = await newAccount();
  const l = licensing(account);
  const receiver = await startReceiver();
  const endpoint = await l.api('POST', '/webhook-endpoints', { body: doc('webhook-endpoints', { url: receiver.url }) });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  return { account, l, receiver };
}

/** The payloads of `account`'s webhook events of `kind` about the record `id`, every page read. */
export async function eventPayloads(account: TestAccount, kind: string, id: string): Promise<any[]> {
  const payloads: any[] = [];
  let next: string | null = `${account.path}/webhook-events?events[]=${kind}&page[cursor]=&page[size]=100`;
  while (next) {
    const reply: Reply = await call('GET', next, { token: account.adminToken });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    payloads.push(...reply.body.data.map((event: any) => JSON.parse(event.attributes.payload)));
    next = reply.body.links.next;
  }
  return payloads.filter((payload) => payload.data.id === id);
}
