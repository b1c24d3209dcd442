/**
 * Deployed, API Gateway hands the function bodies of up to 10 MB: the pipeline itself refuses
 * one over 1 MB, counting the bytes sent (a binary body arrives base64-encoded, a third larger).
 * The local server stops earlier (test/http/inputs.test.ts), so the handler is called directly.
 * The refusal comes before the account step, and is signed by the account all the same.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { lambdaContext } from '#dev/local/lambda-context.ts';
import { MAX_BODY_BYTES } from '#shared/http/body.ts';
import { createAccount } from '#shared/resources/accounts/service.ts';
import { create } from '#shared/resources/users/handlers.ts';
import { verifyAnswer } from '../support/signed.ts';

const HOST = 'licensing.example.test';
const handler = create();

function invoke(body: string, isBase64Encoded: boolean, account: string = randomUUID()) {
  const path = `/v1/accounts/${account}/users`;
  const event = {
    version: '2.0',
    routeKey: 'POST /v1/accounts/{account}/users',
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/vnd.api+json', host: HOST },
    pathParameters: { account: path.split('/')[3]! },
    requestContext: {
      http: { method: 'POST', path, sourceIp: '127.0.0.1' },
      requestId: randomUUID(),
      routeKey: 'POST /v1/accounts/{account}/users',
    },
    body,
    isBase64Encoded,
  } as unknown as APIGatewayProxyEventV2;
  const context = lambdaContext('users.create', 10, 'us-east-1') as Parameters<typeof handler>[1];
  return handler(event, context) as Promise<APIGatewayProxyStructuredResultV2>;
}

const bytes = (size: number) => Buffer.alloc(size, 'x');

describe('the pipeline’s body limit', () => {
  it.each([
    ['text', bytes(MAX_BODY_BYTES + 1).toString('utf8'), false],
    ['base64', bytes(MAX_BODY_BYTES + 1).toString('base64'), true],
  ])('answers 413 PAYLOAD_TOO_LARGE to a %s body of 1 MB and a byte', async (_, body, base64) => {
    const result = await invoke(body, base64);
    expect(result.statusCode).toBe(413);
    expect(JSON.parse(result.body!).errors).toEqual([expect.objectContaining({ title: 'Payload too large', code: 'PAYLOAD_TOO_LARGE' })]);
  });

  it('signs the 413 with the key of the account the path names, by id and by slug', async () => {
    const slug = `t-${randomUUID().slice(0, 12)}`;
    const { account } = await createAccount({ slug, name: slug, email: `admin@${slug}.example`, password: 'correct horse battery' });
    for (const named of [account.id, slug]) {
      const result = await invoke(bytes(MAX_BODY_BYTES + 1).toString('utf8'), false, named);
      expect(result.statusCode).toBe(413);
      const answer = {
        method: 'POST',
        url: new URL(`https://${HOST}/v1/accounts/${named}/users`),
        status: 413,
        headers: new Headers(result.headers as Record<string, string>),
        body: Buffer.from(result.body ?? ''),
      };
      expect(answer.headers.get('keygen-signature')).toContain(`keyid="${account.id}"`);
      expect(verifyAnswer(answer, account.signingKey?.publicKey ?? '')).toBeUndefined();
    }
  });

  it('counts the decoded bytes of a base64 body: 900 KB pass on, though their base64 text is larger', async () => {
    const body = bytes(900 * 1024).toString('base64');
    expect(body.length).toBeGreaterThan(MAX_BODY_BYTES);
    // Read on to the account, which does not exist.
    expect((await invoke(body, true)).statusCode).toBe(404);
  });
});
