import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordKey } from '#shared/store/keys.ts';
import { attributesOf } from '#shared/store/records.ts';
import { basic, call, expectError, newAccount, newUser, type TestAccount, userBody } from '../support/client.ts';
import { localStackIdle } from '../support/idle.ts';
import { inbox, resetLinkOf, waitForMail } from '../support/mail.ts';
import { ofKind, type Receiver, startReceiver, verify } from '../support/receiver.ts';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));

/** Every item of the table, page after page (a Scan answers 1 MB at most). */
async function allItems(): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  let start: Record<string, any> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({ TableName: process.env.TABLE_NAME, ExclusiveStartKey: start, ConsistentRead: true }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
let account: TestAccount;
beforeAll(async () => {
  account = await newAccount();
});

const request = (target: TestAccount, meta: unknown, environment?: string) =>
  call('POST', `${target.path}/passwords`, { body: { meta }, environment });

const fulfil = (target: TestAccount, userId: string, passwordResetToken: string, newPassword: string, environment?: string) =>
  call('POST', `${target.path}/users/${userId}/actions/reset-password`, {
    body: { meta: { passwordResetToken, newPassword } },
    environment: environment ?? undefined,
  });

const email = (tag = 'reset') => `${tag}-${randomUUID().slice(0, 8)}@mail.example`;

/** Requests a reset by e-mail and returns the link of the mail it brings. */
async function resetLink(target: TestAccount, address: string, nth = 1) {
  expect((await request(target, { email: address })).status).toBe(202);
  return resetLinkOf(await waitForMail(address, nth));
}

describe('POST /passwords', () => {
  it('answers 202 with no body, alike for a known and an unknown address', async () => {
    const { email: known } = await newUser(account, { email: email() });
    const [a, b] = await Promise.all([request(account, { email: known }), request(account, { email: email('nobody') })]);
    for (const reply of [a, b]) {
      expect(reply.status).toBe(202);
      expect(reply.body).toBeUndefined();
    }
    const names = (reply: typeof a) => [...reply.headers.keys()].filter((n) => !['date', 'x-request-id'].includes(n)).sort();
    expect(names(a)).toEqual(names(b));
    expect(a.headers.get('x-ratelimit-remaining')).toBe(b.headers.get('x-ratelimit-remaining'));
    await waitForMail(known);
    expect(await inbox(known)).toHaveLength(1);
  });

  it('refuses a malformed request with 400', async () => {
    expectError(await request(account, {}), 400, { source: { pointer: '/meta/email' }, detail: 'is missing' });
    expectError(await request(account, { email: 'a@b.example', deliver: 'yes' }), 400, { source: { pointer: '/meta/deliver' } });
    expectError(await call('POST', `${account.path}/passwords`, { body: { data: {} } }), 400);
    expectError(await call('POST', `${account.path}/passwords`, { raw: '{', headers: { 'content-type': 'application/json' } }), 400, {
      code: 'JSON_INVALID',
    });
  });

  it('matches the address case-insensitively and mails a link to the hosted form', async () => {
    const { email: address, id } = await newUser(account, { email: email('Mixed') });
    expect((await request(account, { email: address.toUpperCase() })).status).toBe(202);
    const mail = await waitForMail(address);
    const link = resetLinkOf(mail);
    expect(link.userId).toBe(id);
    expect(link.token).toMatch(/^[0-9a-f]{64}$/);
    expect(link.url.startsWith(`http://127.0.0.1:`)).toBe(true);
    expect(new URL(link.url).pathname).toBe(`${account.path}/password-reset`);
    const form = await fetch(link.url);
    expect(form.status).toBe(200);
    expect(form.headers.get('content-type')).toContain('text/html');
    expect(form.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('limits requests to 5 per address per hour, counted for unknown addresses too', async () => {
    const address = email('limited');
    for (let i = 0; i < 5; i++) expect((await request(account, { email: address })).status).toBe(202);
    const refused = await request(account, { email: address.toUpperCase() });
    expectError(refused, 429, { code: 'TOO_MANY_REQUESTS' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('5');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await request(account, { email: email('other') })).status).toBe(202);
  });
});

describe('POST /users/<id>/actions/reset-password', () => {
  it('sets the password once, revokes every token, and lets the user log in with it', async () => {
    const user = await newUser(account, { email: email() });
    const link = await resetLink(account, user.email);
    const reply = await fulfil(account, user.id, link.token, 'a brand new password');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data.id).toBe(user.id);
    expectError(await call('GET', `${account.path}/users/${user.id}`, { token: user.token }), 401, { code: 'TOKEN_INVALID' });
    expect((await call('POST', `${account.path}/tokens`, { authorization: basic(user.email, 'a brand new password') })).status).toBe(201);
    expect((await call('POST', `${account.path}/tokens`, { authorization: basic(user.email, user.password) })).status).toBe(401);
    expectError(await fulfil(account, user.id, link.token, 'yet another password'), 404, { code: 'NOT_FOUND' });
  });

  it('replaces an older token with a newer one', async () => {
    const user = await newUser(account, { email: email() });
    const first = await resetLink(account, user.email, 1);
    const second = await resetLink(account, user.email, 2);
    expect(second.token).not.toBe(first.token);
    expectError(await fulfil(account, user.id, first.token, 'a brand new password'), 404);
    expect((await fulfil(account, user.id, second.token, 'a brand new password')).status).toBe(200);
  });

  it('refuses a wrong token (404), an expired one (401) and a short password (422)', async () => {
    const user = await newUser(account, { email: email() });
    const link = await resetLink(account, user.email);
    expectError(await fulfil(account, user.id, 'f'.repeat(64), 'a brand new password'), 404, { code: 'NOT_FOUND' });
    expectError(await fulfil(account, randomUUID(), link.token, 'a brand new password'), 404, { code: 'NOT_FOUND' });
    expectError(await fulfil(account, user.id, link.token, 'short'), 422, {
      code: 'PASSWORD_TOO_SHORT',
      source: { pointer: '/meta/newPassword' },
    });
    await documents.send(
      new UpdateCommand({
        TableName: process.env.TABLE_NAME,
        Key: recordKey(account.id, 'users', user.id),
        UpdateExpression: 'SET passwordResetExpiry = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    expectError(await fulfil(account, user.id, link.token, 'a brand new password'), 401, { code: 'TOKEN_EXPIRED' });
    expectError(
      await call('POST', `${account.path}/users/${user.id}/actions/reset-password`, { body: { meta: { newPassword: 'x' } } }),
      400,
      {
        source: { pointer: '/meta/passwordResetToken' },
      },
    );
  });

  it('one request delivered several times (SQS duplicates, together or apart) sends one mail', async () => {
    const user = await newUser(account, { email: email('twice') });
    const message = JSON.stringify({ resetId: randomUUID(), accountId: account.id, environmentId: null, email: user.email, deliver: true });
    const sqs = new SQSClient({});
    const send = () => sqs.send(new SendMessageCommand({ QueueUrl: process.env.MAIL_QUEUE_URL, MessageBody: message }));
    await Promise.all([send(), send()]);
    await waitForMail(user.email);
    await localStackIdle();
    await send();
    await localStackIdle();
    expect(await inbox(user.email)).toHaveLength(1);
    sqs.destroy();
  });

  it('keeps the token, the password and the digest out of the table and the logs', async () => {
    const user = await newUser(account, { email: email() });
    const link = await resetLink(account, user.email);
    expect((await fulfil(account, user.id, link.token, 'a secret password 42')).status).toBe(200);
    const table = JSON.stringify(await allItems());
    expect(table).not.toContain(link.token);
    expect(table).not.toContain('a secret password 42');
    const log = readFileSync(process.env.LOCAL_STACK_LOG ?? '.data/test-stack.log', 'utf8');
    expect(log).not.toContain(link.token);
    expect(log).not.toContain('a secret password 42');
  });
});

describe('protected accounts and managed users', () => {
  let guarded: TestAccount;
  beforeAll(async () => {
    guarded = await newAccount();
    const reply = await call('PATCH', guarded.path, {
      token: guarded.adminToken,
      body: { data: { type: 'accounts', attributes: { protected: true } } },
    });
    expect(reply.status).toBe(200);
  });

  const managedUser = async (role = 'user') => {
    const address = email('managed');
    const reply = await call('POST', `${guarded.path}/users`, { token: guarded.adminToken, body: userBody({ email: address, role }) });
    expect(reply.status).toBe(201);
    return { id: reply.body.data.id as string, email: address };
  };

  it('refuses a managed user an initial password (403) and changes nothing', async () => {
    const user = await managedUser();
    const link = await resetLink(guarded, user.email);
    expectError(await fulfil(guarded, user.id, link.token, 'a brand new password'), 403);
    expect((await call('POST', `${guarded.path}/tokens`, { authorization: basic(user.email, 'a brand new password') })).status).toBe(401);
  });

  it('lets a managed admin, and a user with a password, reset in a protected account', async () => {
    const admin = await managedUser('admin');
    const link = await resetLink(guarded, admin.email);
    expect((await fulfil(guarded, admin.id, link.token, 'a brand new password')).status).toBe(200);
  });

  it('remedy: an admin sets a temporary password, after which the user may reset', async () => {
    const user = await managedUser();
    const link = await resetLink(guarded, user.email);
    const patched = await call('PATCH', `${guarded.path}/users/${user.id}`, {
      token: guarded.adminToken,
      body: userBody({ password: 'temporary password' }),
    });
    expect(patched.status).toBe(200);
    expect((await fulfil(guarded, user.id, link.token, 'my own password')).status).toBe(200);
    expect((await call('POST', `${guarded.path}/tokens`, { authorization: basic(user.email, 'my own password') })).status).toBe(201);
  });

  it('remedy: an unprotected account lets a managed user set an initial password', async () => {
    const open = await newAccount();
    const address = email('invited');
    const created = await call('POST', `${open.path}/users`, { token: open.adminToken, body: userBody({ email: address }) });
    const link = await resetLink(open, address);
    expect((await fulfil(open, created.body.data.id, link.token, 'my first password')).status).toBe(200);
    expect((await call('POST', `${open.path}/tokens`, { authorization: basic(address, 'my first password') })).status).toBe(201);
  });
});

describe('inside an environment', () => {
  it('resets a user of the environment through a link that names it, and ignores the address elsewhere', async () => {
    const env = await call('POST', `${account.path}/environments`, {
      token: account.adminToken,
      body: { data: { type: 'environments', attributes: { name: 'Reset', code: `reset-${randomUUID().slice(0, 6)}` } } },
    });
    const code = env.body.data.attributes.code as string;
    const user = await newUser(account, { email: email('env') }, { environment: code });
    expect((await request(account, { email: user.email })).status).toBe(202);
    expect((await request(account, { email: user.email }, code)).status).toBe(202);
    const link = resetLinkOf(await waitForMail(user.email));
    expect(link.environment).toBe(env.body.data.id);
    await localStackIdle();
    expect(await inbox(user.email)).toHaveLength(1);
    expectError(await fulfil(account, user.id, link.token, 'a brand new password'), 404);
    expect((await fulfil(account, user.id, link.token, 'a brand new password', code)).status).toBe(200);
  });
});

describe('deliver: false', () => {
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  /** An account of its own whose webhook endpoint hears its password resets at a receiver. */
  async function hooked() {
    const target = await newAccount();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await call('POST', `${target.path}/webhook-endpoints`, {
      token: target.adminToken,
      body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url, subscriptions: ['user.password-reset'] } } },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    return { target, receiver, secret: endpoint.body.data.attributes.signingSecret as string };
  }

  it('sends no mail and hands the token to a user.password-reset webhook event, which fulfils the reset', async () => {
    const { target, receiver, secret } = await hooked();
    const user = await newUser(target, { email: email('hook') });
    const reply = await request(target, { email: user.email, deliver: false });
    expect(reply.status).toBe(202);
    expect(reply.body).toBeUndefined();
    const [delivery] = ofKind(await receiver.waitFor((all) => ofKind(all, 'user.password-reset').length > 0), 'user.password-reset');
    verify(secret, delivery!);
    const payload = JSON.parse(delivery!.json.data.attributes.payload);
    expect(payload.data).toMatchObject({ type: 'users', id: user.id, attributes: { email: user.email } });
    expect(payload.data.attributes).not.toHaveProperty('passwordResetDigest');
    const token = payload.meta.passwordResetToken as string;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(await inbox(user.email)).toHaveLength(0);
    expect((await fulfil(target, user.id, token, 'set from a webhook')).status).toBe(200);
    expect((await call('POST', `${target.path}/tokens`, { authorization: basic(user.email, 'set from a webhook') })).status).toBe(201);
  });

  it('keeps the token sealed at rest: the API shows "[FILTERED]", the POST and its retry carry the real token', async () => {
    const { target, receiver, secret } = await hooked();
    const user = await newUser(target, { email: email('sealed') });
    expect((await request(target, { email: user.email, deliver: false })).status).toBe(202);
    const [first] = await receiver.waitFor((all) => all.length >= 1);
    verify(secret, first!);
    const eventId = first!.json.data.id as string;
    const token = JSON.parse(first!.json.data.attributes.payload).meta.passwordResetToken as string;
    expect(token).toMatch(/^[0-9a-f]{64}$/);

    // Read back through the API: filtered, in the event and in the list, with nothing sealed shown.
    const shown = await call('GET', `${target.path}/webhook-events/${eventId}`, { token: target.adminToken });
    expect(shown.status).toBe(200);
    expect(JSON.parse(shown.body.data.attributes.payload).meta).toEqual({ passwordResetToken: '[FILTERED]' });
    expect(JSON.parse(shown.body.data.attributes.payload).data).toEqual(JSON.parse(first!.json.data.attributes.payload).data);
    const listed = await call('GET', `${target.path}/webhook-events`, { token: target.adminToken });
    expect(listed.body.data.map((event: any) => event.id)).toEqual([eventId]);
    for (const reply of [shown, listed]) expect(JSON.stringify(reply.body)).not.toContain(token);

    // The retry delivers the real token again, signed over what is sent.
    const retry = await call('POST', `${target.path}/webhook-events/${eventId}/actions/retry`, { token: target.adminToken });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(JSON.parse(retry.body.data.attributes.payload).meta).toEqual({ passwordResetToken: '[FILTERED]' });
    const [, second] = await receiver.waitFor((all) => all.length >= 2);
    verify(secret, second!);
    expect(second!.json.data.id).toBe(retry.body.data.id);
    expect(JSON.parse(second!.json.data.attributes.payload).meta).toEqual({ passwordResetToken: token });

    // At rest: no clear token in any item, the events' sealed values included.
    const items = await allItems();
    expect(JSON.stringify(items)).not.toContain(token);
    const stored = items.filter((item) => item.type === 'webhook-events' && item.accountId === target.id);
    expect(stored).toHaveLength(2);
    for (const item of stored) {
      expect(JSON.parse(attributesOf<{ payload: string }>(item).payload).meta).toEqual({ passwordResetToken: '[FILTERED]' });
      expect(item.sealedMeta).toMatch(/^v1\./);
      // Sealed, and shown by no document.
      for (const reply of [shown, listed, retry]) expect(JSON.stringify(reply.body)).not.toContain(item.sealedMeta);
    }

    expect((await fulfil(target, user.id, token, 'set from a sealed webhook')).status).toBe(200);
    expect((await call('POST', `${target.path}/tokens`, { authorization: basic(user.email, 'set from a sealed webhook') })).status).toBe(
      201,
    );
  });

  it('emits nothing for an unknown address', async () => {
    const { target, receiver } = await hooked();
    expect((await request(target, { email: email('nobody'), deliver: false })).status).toBe(202);
    await localStackIdle();
    expect(ofKind(receiver.deliveries, 'user.password-reset')).toHaveLength(0);
    const events = await call('GET', `${target.path}/webhook-events`, { token: target.adminToken });
    expect(events.body.links.meta.count).toBe(0);
  });
});
