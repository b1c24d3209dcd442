/**
 * Signed answers (docs/signatures.md): every answer given once the account is known carries an
 * Ed25519 signature of the account (shared/auth/signing-key.ts) over the request's method and
 * raw target, the Host it was sent to, the answer's date and the digest of its exact body, in
 * the headers Keygen's SDKs verify:
 *
 *   Date, Digest: sha-256=<base64>          and their copies Keygen-Date, Keygen-Digest
 *   Keygen-Signature: keyid="<account id>", algorithm="ed25519", signature="<base64>",
 *                     headers="(request-target) host date digest"
 *
 * A client binds the answer to its own request (the target) and to a time (the date), so an
 * answer recorded once cannot be replayed for another request or, past the client's tolerance,
 * later. Signing never fails a request: if it cannot be done, the answer goes unsigned and the
 * failure is logged.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type StoredSigningKey, signingKeyOf } from '../auth/signing-key.ts';
import { logger } from '../logger.ts';
import { badRequest } from './errors.ts';

/** The one algorithm answers are signed with. */
export const SIGNATURE_ALGORITHM = 'ed25519';
export const SIGNED_HEADERS = '(request-target) host date digest';
const ACCEPT_HEADER = 'Keygen-Accept-Signature';
/** Set unless the answer says something stronger: a proxy must neither keep nor rewrite a signed answer. */
const CACHE_CONTROL = 'no-transform, no-store, max-age=0';

/** `sha-256=<base64 SHA-256>` of the bytes. */
export const bodyDigest = (body: Buffer) => `sha-256=${createHash('sha256').update(body).digest('base64')}`;

/** The four lines signed, joined by `\n`: what a verifier rebuilds from its request and the answer's headers. */
export function signingString(parts: { method: string; path: string; query: string; host: string; date: string; digest: string }): string {
  const target = `${parts.method.toLowerCase()} ${parts.path}${parts.query ? `?${parts.query}` : ''}`;
  return [`(request-target): ${target}`, `host: ${parts.host}`, `date: ${parts.date}`, `digest: ${parts.digest}`].join('\n');
}

/**
 * Checks the request's Keygen-Accept-Signature, when sent: `[keyid="<account id>", ]algorithm="ed25519"`.
 * A client that names another algorithm or key would not be able to verify the answer: 400.
 */
export function checkAcceptSignature(event: APIGatewayProxyEventV2, accountId: string): void {
  const header = event.headers?.[ACCEPT_HEADER.toLowerCase()];
  if (header === undefined) return;
  const fields = parseSignatureFields(header);
  const invalid = (detail: string) => badRequest(detail, { code: 'ACCEPT_SIGNATURE_INVALID', source: { header: ACCEPT_HEADER } });
  if (!fields || Object.keys(fields).some((name) => name !== 'keyid' && name !== 'algorithm') || fields.algorithm === undefined) {
    throw invalid(`${ACCEPT_HEADER} must read algorithm="${SIGNATURE_ALGORITHM}", optionally after keyid="<account id>"`);
  }
  if (fields.algorithm.toLowerCase() !== SIGNATURE_ALGORITHM) {
    throw invalid(`The signature algorithm '${fields.algorithm}' is not supported: answers are signed with ${SIGNATURE_ALGORITHM}`);
  }
  if (fields.keyid !== undefined && fields.keyid.toLowerCase() !== accountId) {
    throw invalid(`The key '${fields.keyid}' is not this account's: answers are signed with the key of account ${accountId}`);
  }
}

/** `name="value"` pairs separated by commas; undefined when malformed or a name repeats. */
function parseSignatureFields(header: string): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  for (const part of header.split(',')) {
    const match = /^\s*([a-z]+)\s*=\s*"([^"]*)"\s*$/i.exec(part);
    if (!match?.[1] || match[2] === undefined) return undefined;
    const name = match[1].toLowerCase();
    if (name in fields) return undefined;
    fields[name] = match[2];
  }
  return fields;
}

/** The answer with its signature headers; unsigned (and the failure logged) if signing fails. */
export async function signAnswer(
  result: APIGatewayProxyStructuredResultV2,
  event: APIGatewayProxyEventV2,
  account: { id: string; signingKey?: StoredSigningKey },
): Promise<APIGatewayProxyStructuredResultV2> {
  const headers: Record<string, string | number | boolean> = { ...result.headers };
  const has = (name: string) => Object.keys(headers).some((header) => header.toLowerCase() === name);
  if (!has('cache-control')) headers['Cache-Control'] = CACHE_CONTROL;
  try {
    const key = await signingKeyOf(account);
    const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
    const date = new Date().toUTCString();
    const digest = bodyDigest(body);
    const message = signingString({
      method: event.requestContext.http.method,
      path: event.rawPath,
      query: event.rawQueryString,
      host: event.headers?.host ?? '',
      date,
      digest,
    });
    const signature = key.sign(message).toString('base64');
    Object.assign(headers, {
      Date: date,
      Digest: digest,
      'Keygen-Date': date,
      'Keygen-Digest': digest,
      'Keygen-Signature': `keyid="${account.id}", algorithm="${SIGNATURE_ALGORITHM}", signature="${signature}", headers="${SIGNED_HEADERS}"`,
    });
  } catch (error) {
    logger.error('the answer could not be signed', { accountId: account.id, error: error as Error });
  }
  return { ...result, headers };
}
