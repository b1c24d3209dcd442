/**
 * A small JSON:API client for black-box tests: every call is a real HTTP request to the
 * local stack. Accounts are made the way an operator makes them (the same service as the CLI),
 * each test file with its own account so files never see each other's records.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createAccount } from '#shared/resources/accounts/service.ts';
import { checkDescribed } from './described.ts';
import { checkSigned, knowAccount } from './signed.ts';
import { api } from './stack.ts';

export interface Reply {
  status: number;
  headers: Headers;
  /** The parsed JSON body, the text of any other (a file), or undefined for an empty body. */
  body: any;
}

export interface CallOptions {
  token?: string;
  /** A raw Authorization header, for Basic and malformed credentials. */
  authorization?: string;
  body?: unknown;
  /** The raw body text, sent as is. */
  raw?: string;
  headers?: Record<string, string>;
  /** Sent as the Service-Environment header. */
  environment?: string;
}

export async function call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/vnd.api+json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.authorization) headers.authorization = options.authorization;
  if (options.environment !== undefined) headers['service-environment'] = options.environment;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/vnd.api+json';
  }
  const response = await api(path, { method, headers, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  await checkSigned({ method, url: new URL(response.url), status: response.status, headers: response.headers, body: bytes });
  await checkDescribed({ method, path, status: response.status, contentType: response.headers.get('content-type'), text });
  const json = /json/i.test(response.headers.get('content-type') ?? '');
  return { status: response.status, headers: response.headers, body: text ? (json ? JSON.parse(text) : text) : undefined };
}

export const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;

export interface TestAccount {
  id: string;
  slug: string;
  /** `/v1/accounts/<id>` */
  path: string;
  adminToken: string;
  adminEmail: string;
  adminPassword: string;
  adminId: string;
  /** The account's Ed25519 public key, hex: what its answers and deliveries are signed with. */
  publicKey: string;
}

export async function newAccount(): Promise<TestAccount> {
  const slug = `t-${randomUUID().slice(0, 12)}`;
  const adminEmail = `admin@${slug}.example`;
  const adminPassword = 'correct horse battery';
  const { account, user, token } = await createAccount({ slug, name: `Test ${slug}`, email: adminEmail, password: adminPassword });
  if (!account.signingKey) throw new Error('an account is made with its signing key');
  const { publicKey } = account.signingKey;
  knowAccount({ id: account.id, slug, publicKey });
  return {
    id: account.id,
    slug,
    path: `/v1/accounts/${account.id}`,
    adminToken: token,
    adminEmail,
    adminPassword,
    adminId: user.id,
    publicKey,
  };
}

export const userBody = (attributes: Record<string, unknown>) => ({ data: { type: 'users', attributes } });

/** Creates a user as the admin and logs them in; returns the user document and a token. */
export async function newUser(
  account: TestAccount,
  attributes: Record<string, unknown> = {},
  options: { environment?: string; token?: string } = {},
) {
  const email = (attributes.email as string) ?? `${randomUUID().slice(0, 8)}@users.example`;
  const password = (attributes.password as string) ?? 'a long password';
  const created = await call('POST', `${account.path}/users`, {
    token: options.token ?? account.adminToken,
    environment: options.environment,
    body: userBody({ email, password, firstName: 'Test', lastName: 'User', ...attributes }),
  });
  if (created.status !== 201) throw new Error(`user not created: ${JSON.stringify(created.body)}`);
  const login = await call('POST', `${account.path}/tokens`, { authorization: basic(email, password), environment: options.environment });
  if (login.status !== 201) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  return {
    user: created.body.data,
    id: created.body.data.id as string,
    email,
    password,
    token: login.body.data.attributes.token as string,
    tokenId: login.body.data.id as string,
  };
}

/**
 * Creates a user as the admin, without a password and so without logging in: for a user that is
 * only named (attached to a license, say), it spares the two password hashes of `newUser`.
 */
export async function newNamedUser(account: TestAccount, options: { environment?: string; token?: string } = {}) {
  const email = `${randomUUID().slice(0, 8)}@users.example`;
  const created = await call('POST', `${account.path}/users`, {
    token: options.token ?? account.adminToken,
    environment: options.environment,
    body: userBody({ email, firstName: 'Named', lastName: 'User' }),
  });
  if (created.status !== 201) throw new Error(`user not created: ${JSON.stringify(created.body)}`);
  return { user: created.body.data, id: created.body.data.id as string, email };
}

/** An environment made by the account's admin, with its id and code. */
export async function newEnvironment(
  account: TestAccount,
  isolationStrategy: 'SHARED' | 'ISOLATED',
  code = `${isolationStrategy.toLowerCase()}-${randomUUID().slice(0, 8)}`,
) {
  const reply = await call('POST', `${account.path}/environments`, {
    token: account.adminToken,
    body: { data: { type: 'environments', attributes: { name: code, code, isolationStrategy } } },
  });
  if (reply.status !== 201) throw new Error(`environment not created: ${JSON.stringify(reply.body)}`);
  return { id: reply.body.data.id as string, code };
}

/** A token of the environment `code`, generated from inside it by the account's admin; `permissions` narrows it. */
export async function environmentToken(account: TestAccount, code: string, permissions?: string[]): Promise<string> {
  const reply = await call('POST', `${account.path}/environments/${code}/tokens`, {
    token: account.adminToken,
    environment: code,
    ...(permissions ? { body: { data: { type: 'tokens', attributes: { permissions } } } } : {}),
  });
  if (reply.status !== 200) throw new Error(`environment token not generated: ${JSON.stringify(reply.body)}`);
  return reply.body.data.attributes.token as string;
}

/** The single error of an error document, with the shape every error must have. */
export function onlyError(reply: Reply) {
  if (!reply.body || !Array.isArray(reply.body.errors)) throw new Error(`not an error document: ${JSON.stringify(reply.body)}`);
  if ('data' in reply.body) throw new Error('an error document has no data');
  return reply.body.errors[0] as { title: string; detail: string; code?: string; source?: Record<string, string> };
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Access denied',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  431: 'Request header fields too large',
  422: 'Unprocessable resource',
  429: 'Too many requests',
};

type Expected = { code?: string | undefined; source?: Record<string, string>; detail?: string | RegExp };

/**
 * Asserts the whole error document (docs/rules.md §2.1): `{meta: {id}, errors: [...]}` with no data,
 * each error with the title of its status, the X-Request-Id header equal to meta.id. Returns
 * the error matching `expected.source` (or the first one) after checking its code and detail.
 */
export function expectError(reply: Reply, status: number, expected: Expected = {}) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.headers.get('content-type')).toBe('application/vnd.api+json');
  expect(Object.keys(reply.body ?? {}).sort()).toEqual(['errors', 'meta']);
  expect(reply.body.meta).toEqual({ id: expect.any(String) });
  expect(reply.headers.get('x-request-id')).toBe(reply.body.meta.id);
  expect(Array.isArray(reply.body.errors) && reply.body.errors.length > 0).toBe(true);
  for (const error of reply.body.errors) {
    expect(
      Object.keys(error).every((key) => ['title', 'detail', 'code', 'source'].includes(key)),
      JSON.stringify(error),
    ).toBe(true);
    expect(error.title).toBe(TITLES[status]);
    expect(typeof error.detail).toBe('string');
    expect(error.detail.length).toBeGreaterThan(0);
    if (error.source !== undefined) expect(Object.keys(error.source)).toHaveLength(1);
  }
  const error =
    (expected.source && reply.body.errors.find((e: any) => JSON.stringify(e.source) === JSON.stringify(expected.source))) ??
    reply.body.errors[0];
  if (expected.source) expect(error.source, JSON.stringify(reply.body.errors)).toEqual(expected.source);
  if ('code' in expected) expect(error.code).toBe(expected.code);
  if (typeof expected.detail === 'string') expect(error.detail).toBe(expected.detail);
  else if (expected.detail) expect(error.detail).toMatch(expected.detail);
  return error as { title: string; detail: string; code?: string; source?: Record<string, string> };
}
