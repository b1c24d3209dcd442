/**
 * How large an answer may be (docs/rules.md §3.3). Lambda refuses a synchronous invocation's
 * response over 6 MB, and API Gateway then answers 500 for it. What Lambda counts is the result
 * the handler returns as its runtime sends it, JSON: the body as a JSON string (each `"`, `\` and
 * line break of it escaped, a JSON body's escapes escaped again, control characters six bytes
 * each), the status and every header, the signature's included. The pipeline measures exactly
 * that, once the answer is signed, and gives none larger than MAX_ANSWER_BYTES (pipeline.ts).
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** Lambda's limit on the response of a synchronous invocation, in bytes (6 MiB). */
export const LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;

/**
 * The largest answer the pipeline gives, as answerBytes counts it. 291,456 bytes (4.6%) under
 * Lambda's limit: room for what is not measured here (what the runtime wraps the result in, a
 * step after the pipeline's last), so that measuring our own JSON never decides a close call.
 */
export const MAX_ANSWER_BYTES = 6_000_000;

/** The bytes Lambda counts of a result: its JSON, as the runtime serialises what the handler returns. */
export const answerBytes = (result: APIGatewayProxyStructuredResultV2): number => Buffer.byteLength(JSON.stringify(result), 'utf8');

/** The most bytes one character of a body takes in that JSON: a control character, `\u00XX`. */
const MOST_BYTES_PER_CHARACTER = 6;

/**
 * A result's bytes as answerBytes counts them when they may pass `limit`, else undefined. Most
 * answers are far below it: their bound (the body at six bytes a character, the rest measured)
 * says so without serialising the body a second time.
 */
export function bytesOver(result: APIGatewayProxyStructuredResultV2, limit: number): number | undefined {
  const body = result.body ?? '';
  const bound = body.length * MOST_BYTES_PER_CHARACTER + answerBytes({ ...result, body: '' });
  if (bound <= limit) return undefined;
  const bytes = answerBytes(result);
  return bytes > limit ? bytes : undefined;
}
