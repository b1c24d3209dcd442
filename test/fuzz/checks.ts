/**
 * What every answer must be, whatever was asked: not a 5xx, within 5 s, a JSON:API document
 * unless the description documents that answer as something else (no body, a page, a file, the
 * description itself), and allowed by the description (test/support/described.ts, the
 * check every HTTP test applies).
 */

import { createRouter } from '#dev/local/router.ts';
import { MAX_BODY_BYTES } from '#shared/http/body.ts';
import { fallback, routes } from '#shared/routes.ts';
import { checkDescribed } from '../support/described.ts';
import { JSON_API, routeInfo } from './description.ts';
import type { Incoming, Outgoing } from './http.ts';

export type FailureKind =
  | 'server-error'
  | 'no-answer'
  | 'server-died'
  | 'slow'
  | 'not-json-api'
  | 'undescribed'
  | 'link-unresolved'
  | 'count-mismatch'
  | 'duplicate-id';

export interface Failure {
  kind: FailureKind;
  seed: number;
  /** The plan's index, for requests of the run (not for the invariants' own requests). */
  index?: number;
  operation: string;
  request: Outgoing;
  status: number;
  answer: string;
  detail: string;
  requestId?: string;
  /** The bearer kind and scope of the plan, or what the invariant requested as. */
  as?: string;
}

export const SLOW_MS = 5_000;

const match = createRouter(routes, fallback);

/** The operation the server dispatches the request to (`notFound` when no route matches). */
export function operationOf(method: string, path: string): string {
  const found = match(method, path.split('?')[0] ?? '/');
  return found.kind === 'route' ? found.route.operation : 'notFound';
}

/** What is wrong with a body that should be a JSON:API document (docs/rules.md §1, §2.1), or undefined. */
export function jsonApiProblem(status: number, contentType: string | null, text: string): string | undefined {
  if ((contentType ?? '').split(';')[0]?.trim().toLowerCase() !== JSON_API)
    return `content type ${contentType ?? '(none)'}, not ${JSON_API}`;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return 'the body is not JSON';
  }
  if (!document || typeof document !== 'object' || Array.isArray(document)) return 'the top level is not an object';
  const members = Object.keys(document);
  const unknown = members.filter((member) => !['data', 'errors', 'meta', 'links', 'included', 'jsonapi'].includes(member));
  if (unknown.length) return `top-level members ${unknown.join(', ')} are not JSON:API's`;
  const has = (member: string) => members.includes(member);
  if (!has('data') && !has('errors') && !has('meta')) return 'none of data, errors, meta';
  if (has('data') && has('errors')) return 'both data and errors';
  const { data, errors } = document as { data?: unknown; errors?: unknown };
  if (status >= 400 && !has('errors')) return `a ${status} without errors`;
  if (status < 400 && has('errors')) return `a ${status} with errors`;
  if (has('errors')) {
    if (!Array.isArray(errors) || errors.length === 0) return 'errors is not a non-empty array';
    if (errors.some((error) => !error || typeof error !== 'object' || Array.isArray(error))) return 'an error is not an object';
  }
  if (has('data') && data !== null) {
    const resources = Array.isArray(data) ? data : [data];
    const bad = resources.find((resource) => typeof resource?.type !== 'string' || typeof resource?.id !== 'string');
    if (bad !== undefined) return `a resource without a string type and id: ${JSON.stringify(bad).slice(0, 200)}`;
  }
  return undefined;
}

/** The failures of one answer (none when it is as it must be). */
export async function checkAnswer(request: Outgoing, answer: Incoming): Promise<{ kind: FailureKind; detail: string }[]> {
  if (answer.error) {
    // Past the largest body the API reads, the server answers 413 and closes the connection rather
    // than read the rest (dev/local/http-adapter.ts): a client still writing sees the socket close.
    const tooLarge = (request.body?.length ?? 0) > MAX_BODY_BYTES && /EPIPE|ECONNRESET|other side closed/.test(answer.error);
    return tooLarge ? [] : [{ kind: 'no-answer', detail: answer.error }];
  }
  const found: { kind: FailureKind; detail: string }[] = [];
  if (answer.status >= 500) found.push({ kind: 'server-error', detail: `answered ${answer.status}` });
  if (answer.ms > SLOW_MS) found.push({ kind: 'slow', detail: `took ${Math.round(answer.ms)} ms` });
  const contentType = answer.headers.get('content-type');
  const operation = operationOf(request.method, request.path);
  const documented = routeInfo(operation)?.notJsonApi.has(answer.status) ?? false;
  if (!documented) {
    const problem = jsonApiProblem(answer.status, contentType, answer.text);
    if (problem) found.push({ kind: 'not-json-api', detail: problem });
  }
  // An answer that is no JSON:API document is not also judged against the description.
  if (found.some((failure) => failure.kind === 'not-json-api')) return found;
  try {
    await checkDescribed({ method: request.method, path: request.path, status: answer.status, contentType, text: answer.text });
  } catch (error) {
    found.push({ kind: 'undescribed', detail: error instanceof Error ? error.message.split('\n').slice(0, 4).join(' | ') : String(error) });
  }
  return found;
}
