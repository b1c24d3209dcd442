/**
 * A bearer's request is answered only if its service asked the policies what its operation
 * declares it authorizes (shared/http/pipeline.ts, Keygen's verify_authorized): a handler that
 * forgot to ask answers 500, whatever it would have answered.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { lambdaContext } from '#dev/local/lambda-context.ts';
import type { Actor } from '#shared/auth/actor.ts';
import { authorize, authorizeAction } from '#shared/auth/authorize.ts';
import { declare } from '#shared/http/declaration.ts';
import type { Reply } from '#shared/http/documents.ts';
import { operation, type RequestContext } from '#shared/http/pipeline.ts';
import { createAccount } from '#shared/resources/accounts/service.ts';
import { routes } from '#shared/routes.ts';

let accountId: string;
let token: string;
let userId: string;

beforeAll(async () => {
  const slug = `verify-${randomUUID().slice(0, 8)}`;
  const made = await createAccount({ slug, name: 'Verify', email: `admin@${slug}.example`, password: 'a long password' });
  ({
    account: { id: accountId },
    token,
  } = made);
  userId = made.user.id;
});

const probe = declare({
  operation: 'users.probe',
  method: 'GET',
  path: '/v1/accounts/{account}/users/{id}/probe',
  access: [],
  summary: 'Answers as told',
  auth: 'bearer',
  params: ['id'],
  authorizes: { type: 'users', action: 'read', record: true },
  answers: { 200: { meta: z.object({ answered: z.boolean() }) } },
});

const ok: Reply = { status: 200, body: { meta: { answered: true } } };

/** The pipeline's answer to the probe, its handler doing `asks` before it replies. */
async function answer(asks: (actor: Actor) => Promise<unknown>): Promise<APIGatewayProxyStructuredResultV2> {
  const event = {
    version: '2.0',
    routeKey: `GET ${probe.path}`,
    rawPath: `/v1/accounts/${accountId}/users/${userId}/probe`,
    rawQueryString: '',
    headers: { host: 'api.example', authorization: `Bearer ${token}` },
    pathParameters: { account: accountId, id: userId },
    requestContext: { requestId: 'request', http: { method: 'GET', path: '/', sourceIp: '127.0.0.1' } },
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
  const context = lambdaContext(probe.operation, 10, 'us-east-1') as Context & { request: Partial<RequestContext> };
  const handler = operation(probe, async ({ actor }) => {
    await asks(actor);
    return ok;
  });
  return (await handler(event, context)) as APIGatewayProxyStructuredResultV2;
}

describe('an operation a bearer calls', () => {
  it('answers when its service asked what it declares', async () => {
    const result = await answer((actor) => authorize(actor, 'users', userId, 'read'));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body ?? '')).toEqual({ meta: { answered: true } });
  });

  it('answers 500 when its service asked nothing', async () => {
    const result = await answer(async () => undefined);
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body ?? '').errors).toEqual([expect.objectContaining({ code: 'INTERNAL_ERROR' })]);
    expect(result.body).not.toContain('answered');
  });

  it('answers 500 when its service asked another action, or of the type rather than the record', async () => {
    expect((await answer((actor) => authorize(actor, 'users', userId, 'update'))).statusCode).toBe(500);
    expect((await answer((actor) => authorizeAction(actor, 'users', 'read'))).statusCode).toBe(500);
    expect((await answer((actor) => authorizeAction(actor, 'tokens', 'list'))).statusCode).toBe(500);
  });
});

describe('the route table', () => {
  it('declares what every operation a bearer calls authorizes', () => {
    const bearers = routes.filter((route) => route.auth === 'bearer');
    expect(bearers.length).toBeGreaterThan(90);
    for (const route of bearers) expect(route.authorizes, route.operation).toBeDefined();
    for (const route of routes.filter((candidate) => candidate.auth !== 'bearer'))
      expect(route.authorizes, route.operation).toBeUndefined();
  });
});
