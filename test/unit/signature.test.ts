/**
 * Signed answers (shared/http/signature.ts) and the accounts' Ed25519 keys (shared/auth/signing-key.ts),
 * checked against what is not ours: Keygen's published webhook signature (keygen-go's test), the
 * RFC 8032 §7.1 test vectors, and tweetnacl verifying what the service signs. A signer that fails
 * leaves the answer as it was, unsigned.
 */
import { createHash, randomUUID, verify } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import nacl from 'tweetnacl';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Sealer, signingKeySealer } from '#shared/auth/seal.ts';
import { keyFromSeed, newSigningKey, publicKeyFromHex, publishedPublicKey, signingKeyOf } from '#shared/auth/signing-key.ts';
import { ApiError } from '#shared/http/errors.ts';
import { bodyDigest, checkAcceptSignature, signAnswer, signingString } from '#shared/http/signature.ts';
import { logger } from '#shared/logger.ts';

// Either module keeps its real behaviour; a test replaces one call at a time.
vi.mock('#shared/auth/seal.ts', async (original) => {
  const actual = await original<typeof import('#shared/auth/seal.ts')>();
  return { ...actual, signingKeySealer: vi.fn(actual.signingKeySealer) };
});
vi.mock('#shared/auth/signing-key.ts', async (original) => {
  const actual = await original<typeof import('#shared/auth/signing-key.ts')>();
  return { ...actual, signingKeyOf: vi.fn(actual.signingKeyOf) };
});

afterEach(() => vi.restoreAllMocks());

const hex = (value: string) => Buffer.from(value, 'hex');
const naclVerify = (message: string | Buffer, signature: Buffer, publicKeyHex: string) =>
  nacl.sign.detached.verify(Buffer.from(message), signature, hex(publicKeyHex));

describe("Keygen's published signature (keygen-go, webhook test)", () => {
  const publicKey = 'e8601e48b69383ba520245fd07971e983d06d22c4257cfd82304601479cee788';
  const signature = Buffer.from('oov4eX9ZC30U6l/OOOTH/IQF3NAlALlgBWQdh0LdG6WNtHbR95SoYJf2wOGMUGp2tYzNdSwlzPyepWozkKtXBg==', 'base64');
  const expected = [
    '(request-target): post /webhooks',
    'host: 5173-2600-1700-3e90-a450-533-a11e-339-f87b.ngrok.io',
    'date: Mon, 06 Jun 2022 16:13:37 GMT',
    'digest: sha-256=9QceiZktviddaBO8zKZe18/L2kZSFwpGDcmvFkvIH3k=',
  ].join('\n');
  const built = signingString({
    method: 'POST',
    path: '/webhooks',
    query: '',
    host: '5173-2600-1700-3e90-a450-533-a11e-339-f87b.ngrok.io',
    date: 'Mon, 06 Jun 2022 16:13:37 GMT',
    digest: 'sha-256=9QceiZktviddaBO8zKZe18/L2kZSFwpGDcmvFkvIH3k=',
  });

  it('signingString builds exactly the string Keygen signed', () => {
    expect(built).toBe(expected);
  });

  it('verifies with tweetnacl and with publicKeyFromHex and node:crypto', () => {
    expect(naclVerify(built, signature, publicKey)).toBe(true);
    expect(verify(null, Buffer.from(built), publicKeyFromHex(publicKey), signature)).toBe(true);
  });

  it('fails once any line changes', () => {
    const altered = built.replace('post /webhooks', 'post /webhooks?x=1');
    expect(naclVerify(altered, signature, publicKey)).toBe(false);
    expect(verify(null, Buffer.from(`${built}\n`), publicKeyFromHex(publicKey), signature)).toBe(false);
  });

  it('appends the raw query after `?`, and only when there is one', () => {
    const parts = { method: 'GET', path: '/v1/a', host: 'h', date: 'd', digest: 'g' };
    expect(signingString({ ...parts, query: 'page%5Bsize%5D=1' }).split('\n')[0]).toBe('(request-target): get /v1/a?page%5Bsize%5D=1');
    expect(signingString({ ...parts, query: '' }).split('\n')[0]).toBe('(request-target): get /v1/a');
  });

  it('publishes the key as Keygen does: base64 of the lower-case hex', () => {
    expect(publishedPublicKey({ publicKey })).toBe(Buffer.from(publicKey).toString('base64'));
    expect(Buffer.from(publishedPublicKey({ publicKey }), 'base64').toString('utf8')).toBe(publicKey);
  });
});

/** RFC 8032 §7.1, TEST 1, 2 and 3: secret key (the seed), public key, message, signature. */
const RFC_8032 = [
  {
    name: 'TEST 1 (empty message)',
    secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    public: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    name: 'TEST 2 (one byte)',
    secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    public: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    name: 'TEST 3 (two bytes)',
    secret: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    public: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature:
      '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
];

describe('RFC 8032 §7.1 vectors through the service key handling', () => {
  for (const vector of RFC_8032) {
    it(vector.name, () => {
      const key = keyFromSeed(hex(vector.secret));
      expect(key.publicKey).toBe(vector.public);
      const signature = key.sign(hex(vector.message));
      expect(signature.toString('hex')).toBe(vector.signature);
      expect(nacl.sign.detached.verify(hex(vector.message), signature, hex(vector.public))).toBe(true);
      // tweetnacl derives the same public key from the seed.
      expect(Buffer.from(nacl.sign.keyPair.fromSeed(hex(vector.secret)).publicKey).toString('hex')).toBe(vector.public);
    });
  }

  it('a key made for an account, stored sealed and unsealed again, signs what tweetnacl verifies', async () => {
    const id = randomUUID();
    const stored = await newSigningKey(id);
    expect(stored.publicKey).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.sealedPrivateKey).not.toContain(stored.publicKey);
    const key = await signingKeyOf({ id, signingKey: stored });
    expect(key.publicKey).toBe(stored.publicKey);
    expect(key.stored).toEqual(stored);
    expect(naclVerify('a message', key.sign('a message'), stored.publicKey)).toBe(true);
    expect(naclVerify('another message', key.sign('a message'), stored.publicKey)).toBe(false);
  });
});

describe('checkAcceptSignature', () => {
  const accountId = randomUUID();
  const event = (header?: string) =>
    ({ headers: header === undefined ? {} : { 'keygen-accept-signature': header } }) as unknown as APIGatewayProxyEventV2;
  const refusal = (header: string) => {
    try {
      checkAcceptSignature(event(header), accountId);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it.each([
    ['absent', undefined],
    ['the algorithm alone', 'algorithm="ed25519"'],
    ['the algorithm in capitals', 'algorithm="ED25519"'],
    ['the key and the algorithm', `keyid="${accountId}", algorithm="ed25519"`],
    ['the key in capitals', `keyid="${accountId.toUpperCase()}", algorithm="ed25519"`],
    ['the fields the other way round, spaced', ` algorithm = "ed25519" ,keyid="${accountId}" `],
  ])('accepts %s', (_name, header) => {
    expect(() => checkAcceptSignature(event(header), accountId)).not.toThrow();
  });

  it.each([
    ['empty', ''],
    ['a bare algorithm name', 'ed25519'],
    ['an unquoted value', 'algorithm=ed25519'],
    ['a trailing comma', 'algorithm="ed25519",'],
    ['no algorithm', `keyid="${accountId}"`],
    ['a repeated field', 'algorithm="ed25519", algorithm="ed25519"'],
    ['an unknown field', 'algorithm="ed25519", headers="date"'],
    ['another algorithm', 'algorithm="rsa-pss-sha256"'],
    ['another algorithm with the key', `keyid="${accountId}", algorithm="rsa-sha256"`],
    ["another account's key", `keyid="${randomUUID()}", algorithm="ed25519"`],
    ['an empty key id', 'keyid="", algorithm="ed25519"'],
  ])('refuses %s with 400 ACCEPT_SIGNATURE_INVALID', (_name, header) => {
    const error = refusal(header);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).errors).toEqual([
      { title: 'Bad request', detail: expect.any(String), code: 'ACCEPT_SIGNATURE_INVALID', source: { header: 'Keygen-Accept-Signature' } },
    ]);
  });
});

describe('signAnswer', () => {
  const HOST = 'api.example.test';
  const request = (method = 'GET', rawPath = '/v1/accounts/a/licenses', rawQueryString = 'page%5Bsize%5D=1') =>
    ({ rawPath, rawQueryString, headers: { host: HOST }, requestContext: { http: { method } } }) as unknown as APIGatewayProxyEventV2;
  const answer = (extra: Partial<APIGatewayProxyStructuredResultV2> = {}): APIGatewayProxyStructuredResultV2 => ({
    statusCode: 200,
    headers: { 'Content-Type': 'application/vnd.api+json', 'X-Request-Id': 'r-1' },
    body: '{"data":{"id":"1","type":"licenses"}}',
    ...extra,
  });
  const account = async () => {
    const id = randomUUID();
    return { id, signingKey: await newSigningKey(id) };
  };
  const fields = (header: unknown) => Object.fromEntries([...String(header).matchAll(/([a-z]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));

  /** Checks the headers as a client would: digest over `bytes`, signature with tweetnacl over a string built here. */
  function expectVerified(signed: APIGatewayProxyStructuredResultV2, bytes: Buffer, target: string, publicKey: string, accountId: string) {
    const headers = signed.headers ?? {};
    const date = String(headers.Date);
    expect(date).toMatch(
      /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/,
    );
    expect(headers.Digest).toBe(`sha-256=${createHash('sha256').update(bytes).digest('base64')}`);
    expect(headers['Keygen-Date']).toBe(date);
    expect(headers['Keygen-Digest']).toBe(headers.Digest);
    const signature = fields(headers['Keygen-Signature']);
    expect(Object.keys(signature).sort()).toEqual(['algorithm', 'headers', 'keyid', 'signature']);
    expect(signature).toMatchObject({ keyid: accountId, algorithm: 'ed25519', headers: '(request-target) host date digest' });
    const message = `(request-target): ${target}\nhost: ${HOST}\ndate: ${date}\ndigest: ${headers.Digest}`;
    expect(naclVerify(message, Buffer.from(signature.signature ?? '', 'base64'), publicKey)).toBe(true);
  }

  it('signs method, raw path and query, Host, Date and the digest of the body, leaving the answer as it was', async () => {
    const signer = await account();
    const original = answer();
    const signed = await signAnswer(original, request(), signer);
    expect(signed.statusCode).toBe(200);
    expect(signed.body).toBe(original.body);
    expect(signed.headers).toMatchObject({ ...original.headers, 'Cache-Control': 'no-transform, no-store, max-age=0' });
    expectVerified(
      signed,
      Buffer.from(original.body ?? ''),
      'get /v1/accounts/a/licenses?page%5Bsize%5D=1',
      signer.signingKey.publicKey,
      signer.id,
    );
  });

  it('signs an empty answer (204) with the digest of no bytes', async () => {
    const signer = await account();
    const signed = await signAnswer(
      { statusCode: 204, headers: { 'X-Request-Id': 'r' }, body: '' },
      request('DELETE', '/v1/x', ''),
      signer,
    );
    expect(signed.headers?.Digest).toBe('sha-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
    expect(bodyDigest(Buffer.alloc(0))).toBe('sha-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
    expectVerified(signed, Buffer.alloc(0), 'delete /v1/x', signer.signingKey.publicKey, signer.id);
  });

  it('digests the bytes a base64-encoded body decodes to', async () => {
    const signer = await account();
    const bytes = Buffer.from([0, 1, 2, 250, 251, 255]);
    const signed = await signAnswer(
      answer({ body: bytes.toString('base64'), isBase64Encoded: true }),
      request('POST', '/v1/y', ''),
      signer,
    );
    expectVerified(signed, bytes, 'post /v1/y', signer.signingKey.publicKey, signer.id);
  });

  it("keeps the answer's own Cache-Control, whatever its case", async () => {
    const signer = await account();
    const signed = await signAnswer(answer({ headers: { 'cache-control': 'private, max-age=60' } }), request(), signer);
    expect(signed.headers?.['cache-control']).toBe('private, max-age=60');
    expect(signed.headers).not.toHaveProperty('Cache-Control');
    expect(signed.headers?.['Keygen-Signature']).toBeDefined();
  });

  describe('a signer that fails leaves the answer unsigned but intact, and logs why', () => {
    const SIGNATURE_HEADERS = ['Date', 'Digest', 'Keygen-Date', 'Keygen-Digest', 'Keygen-Signature'];

    async function expectUnsigned(signer: Parameters<typeof signAnswer>[2]) {
      const errors = vi.spyOn(logger, 'error').mockImplementation(() => {});
      const original = answer({ statusCode: 201 });
      const signed = await signAnswer(original, request('POST', '/v1/accounts/a/licenses', ''), signer);
      expect(signed).toEqual({ ...original, headers: { ...original.headers, 'Cache-Control': 'no-transform, no-store, max-age=0' } });
      for (const name of SIGNATURE_HEADERS) expect(signed.headers).not.toHaveProperty(name);
      expect(errors).toHaveBeenCalledWith('the answer could not be signed', expect.objectContaining({ accountId: signer.id }));
    }

    it('a private key sealed for another account does not unseal', async () => {
      const other = await account();
      await expectUnsigned({ id: randomUUID(), signingKey: other.signingKey });
    });

    it('a stored public key that is not the private key’s', async () => {
      const signer = await account();
      const stranger = await account();
      await expectUnsigned({ id: signer.id, signingKey: { ...signer.signingKey, publicKey: stranger.signingKey.publicKey } });
    });

    it('the keeper unreachable: unsigned now, signed on the next answer (the failure is not kept)', async () => {
      const signer = await account();
      vi.mocked(signingKeySealer).mockReturnValueOnce({
        unseal: () => Promise.reject(new Error('KMS is unreachable')),
      } as unknown as Sealer);
      await expectUnsigned(signer);
      const next = await signAnswer(answer(), request(), signer);
      expectVerified(
        next,
        Buffer.from(answer().body ?? ''),
        'get /v1/accounts/a/licenses?page%5Bsize%5D=1',
        signer.signingKey.publicKey,
        signer.id,
      );
    });

    it('a signer that throws', async () => {
      const signer = await account();
      vi.mocked(signingKeyOf).mockResolvedValueOnce({
        publicKey: signer.signingKey.publicKey,
        stored: signer.signingKey,
        sign: () => {
          throw new Error('the signer failed');
        },
      });
      await expectUnsigned(signer);
    });
  });
});
