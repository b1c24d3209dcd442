/**
 * Every link an answer gives must resolve as given (docs/rules.md §9): followed with `GET` by the
 * same bearer with the same headers, it answers 2xx. A 403 also counts as resolved: the record is
 * there and the link is right, only this bearer may not read it (an account or an environment
 * seen by a product token). Anything else — 404 above all, and a 400 for a malformed link — is a
 * link that does not resolve.
 *
 *   await assertLinksResolve(reply.body, { token, environment });
 */
import { expect } from 'vitest';
import { type CallOptions, call } from './client.ts';

/** A JSON:API document as answered: its resource objects in `data` (one or a list) and `included`, its own `links`. */
type Document = { data?: unknown; included?: unknown; links?: unknown } | null | undefined;

/**
 * Follows every link of `document` with the bearer and headers of `options` (its body is not
 * sent); fails naming each link that did not resolve, with its status and errors.
 */
export async function assertLinksResolve(document: Document, options: CallOptions = {}): Promise<void> {
  const { body: _body, raw: _raw, ...request } = options;
  const unresolved: string[] = [];
  await Promise.all(
    linksOf(document).map(async (link) => {
      const reply = await call('GET', link, request);
      if (!resolved(reply.status)) unresolved.push(`${link} → ${reply.status} ${JSON.stringify(reply.body?.errors ?? '')}`);
    }),
  );
  expect(unresolved, 'links that do not resolve').toEqual([]);
}

const resolved = (status: number) => (status >= 200 && status < 300) || status === 403;

/**
 * Every link of a document, each once: the top-level `links` (a list's self, first, prev, next,
 * last; null ends skipped) and, of each resource object, `links.self`, `links.related` and every
 * relationship's `links.related`.
 */
function linksOf(document: Document): string[] {
  const found = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string') found.add(value);
  };
  for (const [name, value] of Object.entries(asObject(document?.links))) if (name !== 'meta') add(value);
  for (const resource of [...resourcesIn(document?.data), ...resourcesIn(document?.included)]) {
    const links = asObject(resource.links);
    add(links.self);
    add(links.related);
    for (const relationship of Object.values(asObject(resource.relationships))) add(asObject(asObject(relationship).links).related);
  }
  return [...found];
}

const resourcesIn = (value: unknown): Record<string, unknown>[] =>
  (Array.isArray(value) ? value : value ? [value] : []).map(asObject).filter((resource) => Object.keys(resource).length > 0);

const asObject = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
