/**
 * The API under AWS faults (dev/faults.ts): a realistic slice of an account's life — products,
 * policies, licenses, machines, components, processes, users, tokens, webhook endpoints,
 * validations, updates, deletes, password resets, environments and their purge — sent with DynamoDB, SQS and SES failing about
 * one request in twelve: throttled, a 500, a timeout, before a request or after it was carried out
 * with its answer lost. Then, faults off and the stack idle:
 *
 * - every request succeeded, or answered 5xx, 429 or 409 with a JSON:API error document (never a
 *   hang, a non-JSON answer or another 4xx), and a success is signed;
 * - the table is consistent (test/support/consistency.ts): nothing half-written, nothing counted twice;
 * - every webhook event in the table was delivered, each first refused by the receiver retried;
 * - every reset request accepted for an existing user ended in a mail, or in the mail dead-letter queue.
 *
 * The stack is this file's own, in its process (test/support/faults.ts); the suite's stack
 * never sees a fault. FAULT_SEED replays a run (the requests' interleaving aside).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type Answered,
  type ApiRequest,
  type FaultAccount,
  type FaultStack,
  runUnderFaults,
  type Send,
  type Step,
  startFaultStack,
} from '../support/faults.ts';

const RATE = 0.08;
const LICENSING_SESSIONS = 16;
const USER_SESSIONS = 12;
const ENDPOINT_SESSIONS = 6;
const ENVIRONMENT_SESSIONS = 3;

let stack: FaultStack;
let account: FaultAccount;

beforeAll(async () => {
  // One fault in four strikes every attempt of its call: the SDK's retries do not hide them all.
  stack = await startFaultStack({ seed: 18, sticky: 0.25 });
  account = await stack.newAccount();
});

afterAll(async () => {
  await stack?.stop();
});

const doc = (type: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => ({
  data: { type, attributes, ...(relationships ? { relationships } : {}) },
});
const ref = (type: string, id: string) => ({ data: { type, id } });
const ok = (answer: Answered) => answer.status >= 200 && answer.status < 300;

/** A session as a client runs it: each request once; what depends on a request that failed is not sent. */
function session(
  run: (
    api: (method: string, path: string, options?: Omit<ApiRequest, 'method' | 'path' | 'account'>) => Promise<Answered>,
  ) => Promise<void>,
): Step {
  return async (send: Send) => {
    const api = (method: string, path: string, options: Omit<ApiRequest, 'method' | 'path' | 'account'> = {}) =>
      send({ method, path, account, ...options });
    await run(api).catch((error: unknown) => {
      if (!(error instanceof Stopped)) throw error;
    });
  };
}

/** A request of the session failed: the rest of it depended on it. */
class Stopped extends Error {}
const required = (answer: Answered) => {
  if (!ok(answer)) throw new Stopped();
  return answer.body?.data as { id: string; attributes: Record<string, any> };
};

const licensingSession = (i: number) =>
  session(async (api) => {
    const product = required(await api('POST', '/products', { body: doc('products', { name: `Product ${i}` }) }));
    const policy = required(
      await api('POST', '/policies', {
        body: doc('policies', { name: `Policy ${i}`, maxMachines: 3, maxCores: 64 }, { product: ref('products', product.id) }),
      }),
    );
    const license = required(await api('POST', '/licenses', { body: doc('licenses', {}, { policy: ref('policies', policy.id) }) }));
    const key = license.attributes.key as string;
    await api('POST', '/licenses/actions/validate-key', { body: { meta: { key } }, anonymous: true });
    const fingerprint = `fp-${randomUUID()}`;
    const machine = required(
      await api('POST', '/machines', { body: doc('machines', { fingerprint, cores: 4 }, { license: ref('licenses', license.id) }) }),
    );
    await api('POST', '/licenses/actions/validate-key', { body: { meta: { key, scope: { fingerprint } } }, anonymous: true });
    const component = required(
      await api('POST', '/components', {
        body: doc('components', { fingerprint: `c-${randomUUID()}`, name: 'Disk' }, { machine: ref('machines', machine.id) }),
      }),
    );
    await api('PATCH', `/machines/${machine.id}`, { body: doc('machines', { cores: 8, name: `Machine ${i}` }) });
    await api('GET', `/licenses/${license.id}`);
    await api('GET', `/machines?license=${license.id}`);
    const tokenAnswer = await api('POST', `/licenses/${license.id}/tokens`);
    if (ok(tokenAnswer)) await api('GET', `/licenses/${license.id}`, { token: tokenAnswer.body.data.attributes.token });
    await api('POST', `/licenses/${license.id}/actions/validate`);
    await api('POST', '/processes', { body: doc('processes', { pid: `${i}` }, { machine: ref('machines', machine.id) }) });
    const second = await api('POST', '/machines', {
      body: doc('machines', { fingerprint: `fp-${randomUUID()}`, cores: 2 }, { license: ref('licenses', license.id) }),
    });
    await api('DELETE', `/components/${component.id}`);
    if (ok(second)) await api('DELETE', `/machines/${second.body.data.id}`);
    await api('PATCH', `/licenses/${license.id}`, { body: doc('licenses', { name: `License ${i}` }) });
    if (ok(await api('POST', `/licenses/${license.id}/actions/suspend`))) await api('POST', `/licenses/${license.id}/actions/reinstate`);
    await api('POST', `/products/${product.id}/tokens`);
    if (i % 3 === 0) await api('DELETE', `/products/${product.id}`);
    else if (i % 3 === 1) await api('DELETE', `/licenses/${license.id}`);
  });

const userSession = (i: number) =>
  session(async (api) => {
    const email = `user-${i}-${randomUUID().slice(0, 6)}@faults.example`;
    const password = 'a long password';
    const user = required(await api('POST', '/users', { body: doc('users', { email, password, firstName: 'Faulty', lastName: `${i}` }) }));
    const login = required(
      await api('POST', '/tokens', { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` }),
    );
    await api('GET', '/me', { token: login.attributes.token });
    await api('PATCH', `/users/${user.id}`, { body: doc('users', { firstName: 'Faultless' }) });
    await api('POST', '/passwords', { body: { meta: { email } }, anonymous: true });
    await api('GET', `/users/${user.id}/tokens`);
    await api('POST', '/passwords', { body: { meta: { email, deliver: false } }, anonymous: true });
    await api('DELETE', `/tokens/${login.id}`);
    if (i % 4 === 0) await api('DELETE', `/users/${user.id}`);
  });

const endpointSession = (i: number) =>
  session(async (api) => {
    const endpoint = required(
      await api('POST', '/webhook-endpoints', {
        body: doc('webhook-endpoints', { url: `${stack.receiver.url}/extra-${i}`, subscriptions: ['license.created', 'machine.created'] }),
      }),
    );
    await api('PATCH', `/webhook-endpoints/${endpoint.id}`, { body: doc('webhook-endpoints', { subscriptions: ['*'] }) });
    await api('GET', `/webhook-endpoints/${endpoint.id}`);
    if (i % 2 === 0) await api('DELETE', `/webhook-endpoints/${endpoint.id}`);
  });

/** A SHARED environment holding a global license's machine (counted in the environment's shares) and a user, then deleted: its purge runs under faults. */
const environmentSession = (i: number) =>
  session(async (api) => {
    const code = `shared-${i}-${randomUUID().slice(0, 6)}`;
    const environment = required(
      await api('POST', '/environments', { body: doc('environments', { name: code, code, isolationStrategy: 'SHARED' }) }),
    );
    const product = required(await api('POST', '/products', { body: doc('products', { name: `Shared product ${i}` }) }));
    const policy = required(
      await api('POST', '/policies', {
        body: doc('policies', { name: 'Shared', maxMachines: 2 }, { product: ref('products', product.id) }),
      }),
    );
    const license = required(await api('POST', '/licenses', { body: doc('licenses', {}, { policy: ref('policies', policy.id) }) }));
    const inside = { environment: code };
    await api('POST', '/machines', {
      ...inside,
      body: doc('machines', { fingerprint: `fp-${randomUUID()}`, cores: 2 }, { license: ref('licenses', license.id) }),
    });
    await api('POST', '/users', { ...inside, body: doc('users', { email: `env-${i}-${randomUUID().slice(0, 6)}@faults.example` }) });
    await api('GET', '/machines', inside);
    await api('DELETE', `/environments/${environment.id}`);
  });

it('keeps its promises under AWS faults', async () => {
  const steps: Step[] = [];
  for (let i = 0; i < Math.max(LICENSING_SESSIONS, USER_SESSIONS, ENDPOINT_SESSIONS, ENVIRONMENT_SESSIONS); i++) {
    if (i < LICENSING_SESSIONS) steps.push(licensingSession(i));
    if (i < USER_SESSIONS) steps.push(userSession(i));
    if (i < ENDPOINT_SESSIONS) steps.push(endpointSession(i));
    if (i < ENVIRONMENT_SESSIONS) steps.push(environmentSession(i));
  }
  const run = await runUnderFaults(stack, steps, { rate: RATE, concurrency: 8 });
  console.info(
    `under faults (rate ${RATE}): ${run.answers.length} requests, statuses ${JSON.stringify(run.statuses)}, faults fired ${JSON.stringify(run.fired)}, ` +
      `${stack.receiver.deliveries.length} deliveries (${run.redelivered.length} duplicates), ${run.stranded.length} events stranded, ` +
      `${run.deadLettered.length} dead-lettered while their claim was held`,
  );
  expect(run.answers.length).toBeGreaterThan(300);
  expect(Object.values(run.fired).reduce((sum, { before, after }) => sum + before + after, 0)).toBeGreaterThan(0);
  expect.soft(run.badAnswers).toEqual([]);
  expect.soft(run.violations).toEqual([]);
  expect.soft(run.stranded).toEqual([]);
  expect.soft(run.undelivered).toEqual([]);
  expect.soft(run.deadLetteredUnexplained).toEqual([]);
  expect(run.recordedAttempts).toBeGreaterThan(0);
  expect.soft(run.recordedTwice).toEqual([]);
  expect.soft(run.lostMails).toEqual([]);
});
