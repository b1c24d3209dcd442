/**
 * The pipeline's bound on answers (shared/http/answer-size.ts), with the run's DynamoDB Local
 * holding the account that signs them. An answer is measured as Lambda counts it — the result's
 * JSON, its body escaped, the signature's headers included — and given as it is up to
 * MAX_ANSWER_BYTES; a byte more and 422 ANSWER_TOO_LARGE, signed like any answer, takes its
 * place. The largest license or machine file a check-out makes (MAX_DATASET_BYTES) fits, as
 * the document and as the file.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import nacl from 'tweetnacl';
import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '#dev/local/lambda-context.ts';
import { answerBytes, bytesOver, LAMBDA_RESPONSE_BYTES, MAX_ANSWER_BYTES } from '#shared/http/answer-size.ts';
import type { Declaration } from '#shared/http/declaration.ts';
import { attachment, type Reply } from '#shared/http/documents.ts';
import { operation, type RequestContext } from '#shared/http/pipeline.ts';
import { createAccount } from '#shared/resources/accounts/service.ts';
import { buildCertificate, MAX_DATASET_BYTES } from '#shared/resources/check-out/certificate.ts';
import { fileDocumentReply, fileReply } from '#shared/resources/check-out/operations.ts';
import { MACHINE_FILE_INCLUDES } from '#shared/resources/check-out/options.ts';
import type { CheckedOutFile } from '#shared/resources/check-out/service.ts';

let accountId: string;

beforeAll(async () => {
  const slug = `answers-${randomUUID().slice(0, 8)}`;
  ({
    account: { id: accountId },
  } = await createAccount({ slug, name: 'Answers', email: `admin@${slug}.example`, password: 'a long password' }));
});

const declaration: Declaration<'none', never, undefined, Record<string, never>> = {
  operation: 'answers.probe',
  method: 'GET',
  path: '/v1/accounts/{account}/probe',
  access: [],
  summary: 'Answers as told',
  auth: 'none',
  params: [],
  answers: { 200: { file: true } },
};

/** The pipeline's answer to a GET whose handler replies `reply`, as Lambda would be handed it. */
async function answer(reply: Reply): Promise<APIGatewayProxyStructuredResultV2> {
  const event = {
    version: '2.0',
    routeKey: 'GET /v1/accounts/{account}/probe',
    rawPath: `/v1/accounts/${accountId}/probe`,
    rawQueryString: '',
    headers: { host: 'api.example' },
    pathParameters: { account: accountId },
    requestContext: { requestId: 'request', http: { method: 'GET', path: '/', sourceIp: '127.0.0.1' } },
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
  const context = lambdaContext('answers.probe', 10, 'us-east-1') as Context & { request: Partial<RequestContext> };
  return (await operation(declaration, async () => reply)(event, context)) as APIGatewayProxyStructuredResultV2;
}

/** `{meta: {filler}}` with `size` characters of `character`. */
const filled = (size: number, character = 'x'): Reply => ({ status: 200, body: { meta: { filler: character.repeat(size) } } });

function expectRefused(result: APIGatewayProxyStructuredResultV2) {
  expect(result.statusCode).toBe(422);
  const body = result.body ?? '';
  expect(JSON.parse(body)).toEqual({
    meta: { id: 'request' },
    errors: [
      {
        title: 'Unprocessable resource',
        code: 'ANSWER_TOO_LARGE',
        detail: expect.stringMatching(/^The answer would be \d+ bytes, more than the 6000000 an answer may be: .*page\[size\]/),
      },
    ],
  });
  // Signed as every answer is: its digest is the refusal's own body.
  expect(result.headers?.Digest).toBe(`sha-256=${createHash('sha256').update(body).digest('base64')}`);
  expect(result.headers?.['Keygen-Signature']).toMatch(new RegExp(`^keyid="${accountId}", algorithm="ed25519"`));
}

describe('bytesOver', () => {
  it('never passes over a result over the limit: its bound is at least what Lambda counts, whatever the body holds', () => {
    const bodies = ['', 'plain', '"\\"', '\u0000\u0001\u001f\n\t', 'é€', '😀😀', '\ud800 lone', JSON.stringify({ a: '"\n\u0001' })];
    for (const body of bodies) {
      const result = { statusCode: 200, headers: { 'Content-Type': 'application/vnd.api+json' }, body };
      const bytes = answerBytes(result);
      expect(bytesOver(result, bytes - 1), JSON.stringify(body)).toBe(bytes);
      expect(bytesOver(result, bytes)).toBeUndefined();
    }
  });
});

describe('the bound on answers', () => {
  it('gives an answer of MAX_ANSWER_BYTES as Lambda counts it, signature included; a byte more is 422 ANSWER_TOO_LARGE', async () => {
    // The same answer but for its filler's length: every header is of a fixed length.
    const small = await answer(filled(1000));
    expect(small.headers?.['Keygen-Signature']).toBeDefined();
    const size = 1000 + MAX_ANSWER_BYTES - answerBytes(small);
    const largest = await answer(filled(size));
    expect(largest.statusCode).toBe(200);
    expect(answerBytes(largest)).toBe(MAX_ANSWER_BYTES);
    expectRefused(await answer(filled(size + 1)));
  });

  it('counts the body escaped, as Lambda sends it: quotes, a JSON body’s escapes, a file’s line breaks', async () => {
    // Bodies under the bound that Lambda's JSON of the result takes over it.
    for (const [reply, bodyBytes] of [
      [filled(1_600_000, '"'), 3_200_000], // `\"`, then `\\\"`
      [filled(2_100_000, '\n'), 4_200_000], // `\n`, then `\\n`
      [filled(900_000, '\u0001'), 5_400_000], // `\u0001`, then `\\u0001`
      [attachment('\n'.repeat(3_100_000), 'file.lic'), 3_100_000], // `\n`
    ] as const) {
      const body = typeof reply.body === 'object' ? JSON.stringify(reply.body) : (reply.raw ?? '');
      expect(Buffer.byteLength(body)).toBeGreaterThanOrEqual(bodyBytes);
      expect(Buffer.byteLength(body)).toBeLessThan(bodyBytes + 100);
      expectRefused(await answer(reply));
    }
    expect((await answer(attachment('x'.repeat(3_100_000), 'file.lic'))).statusCode).toBe(200);
  });

  it('stays under Lambda’s limit with room to spare', () => {
    expect(MAX_ANSWER_BYTES).toBeLessThan(LAMBDA_RESPONSE_BYTES - 256 * 1024);
  });
});

describe('the largest license or machine file', () => {
  const keys = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(9));
  const sign = (message: Buffer) => Buffer.from(nacl.sign.detached(message, keys.secretKey));
  // The largest dataset, encrypted (longer than plain) in a machine file (longer armour lines).
  const dataset = JSON.stringify({ filler: 'x'.repeat(MAX_DATASET_BYTES - '{"filler":""}'.length) });
  const { certificate, algorithm } = buildCertificate({ kind: 'machine', dataset, sign, encryption: { secret: 'key' } });
  const file: CheckedOutFile = {
    id: randomUUID(),
    kind: 'machine',
    accountId: randomUUID(),
    environmentId: randomUUID(),
    licenseId: randomUUID(),
    machineId: randomUUID(),
    certificate,
    algorithm,
    includes: [...MACHINE_FILE_INCLUDES],
    ttl: 2_629_746,
    issued: new Date().toISOString(),
    expiry: new Date().toISOString(),
  };

  it('is answered within the bound, as the check-out’s document and as the file', async () => {
    expect(Buffer.byteLength(dataset)).toBe(MAX_DATASET_BYTES);
    for (const reply of [fileDocumentReply(file), fileReply(file)]) {
      const result = await answer(reply);
      expect(result.statusCode).toBe(200);
      expect(answerBytes(result)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    }
  });
});
