/**
 * A small JSON:API client for black-box tests: every call is a real HTTP request to the
 * local stack. Accounts are made the way an operator makes them (the same service as the CLI),
 * each test file with its own account so files never see each other's records.
 */
import { randomUUID } from 'node:crypto';
import { createAccount } from '#shared/domain/accounts/service.ts';
import { api } from '../../support/stack.ts';

export interface Reply {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined for an empty body. */
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
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
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
}

export async function newAccount(): Promise<TestAccount> {
  const slug = `t-${randomUUID().slice(0, 12)}`;
  const adminEmail = `admin@${slug}.example`;
  const adminPassword = 'correct horse battery';
  const { account, user, token } = await createAccount({ slug, name: `Test ${slug}`, email: adminEmail, password: adminPassword });
  return { id: account.id, slug, path: `/v1/accounts/${account.id}`, adminToken: token, adminEmail, adminPassword, adminId: user.id };
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
  return { user: created.body.data, id: created.body.data.id as string, email, password, token: login.body.data.attributes.token as string, tokenId: login.body.data.id as string };
}

/** The single error of an error document, with the shape every error must have. */
export function onlyError(reply: Reply) {
  if (!reply.body || !Array.isArray(reply.body.errors)) throw new Error(`not an error document: ${JSON.stringify(reply.body)}`);
  if ('data' in reply.body) throw new Error('an error document has no data');
  return reply.body.errors[0] as { title: string; detail: string; code?: string; source?: Record<string, string> };
}
