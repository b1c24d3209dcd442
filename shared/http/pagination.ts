/**
 * The one pagination of every list (docs/rules.md §4): reading `page[...]`/`limit` into a page
 * request, and building the top-level `links` with `links.meta.{pages,count}`.
 */

import { invalidQuery } from '../errors.ts';
import type { ResourceObject } from '../jsonapi.ts';
import { isCursor, type Page, type PageRequest } from '../store/paging.ts';
import { list, type Reply } from './documents.ts';
import { formatQuery, type Query } from './query.ts';

const DEFAULT_SIZE = 10;
const MAX_SIZE = 100;

function integer(value: unknown, parameter: string, min: number, max: number): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) {
    throw invalidQuery(parameter, `${parameter} must be an integer`);
  }
  const n = Number(value);
  if (n < min || n > max) throw invalidQuery(parameter, `${parameter} must be between ${min} and ${max}`);
  return n;
}

export function pageRequest(query: Query): PageRequest {
  const limit = query.limit === undefined ? DEFAULT_SIZE : integer(query.limit, 'limit', 1, MAX_SIZE);
  const page = query.page;
  if (page === undefined) return { mode: 'number', number: 1, size: limit };
  if (typeof page !== 'object' || Array.isArray(page)) throw invalidQuery('page', 'page must be an object');
  for (const key of Object.keys(page)) {
    if (!['number', 'size', 'cursor'].includes(key)) throw invalidQuery(`page[${key}]`, `page[${key}] is not a page parameter`);
  }
  const size = page.size === undefined ? DEFAULT_SIZE : integer(page.size, 'page[size]', 1, MAX_SIZE);
  if (page.cursor !== undefined) {
    if (page.number !== undefined) throw invalidQuery('page[cursor]', 'page[cursor] cannot be combined with page[number]');
    if (typeof page.cursor !== 'string' || (page.cursor !== '' && !isCursor(page.cursor))) {
      throw invalidQuery('page[cursor]', 'page[cursor] is not a cursor this service issued');
    }
    return { mode: 'cursor', cursor: page.cursor || null, size };
  }
  const number = page.number === undefined ? 1 : integer(page.number, 'page[number]', 1, Number.MAX_SAFE_INTEGER);
  return { mode: 'number', number, size };
}

export interface ListLinks {
  self: string;
  prev?: string | null;
  next: string | null;
  first?: string;
  last?: string;
  meta: { pages: number; count: number };
}

/** Links keep every other query parameter; `limit` is restated as page[size]. */
export function listLinks(path: string, query: Query, request: PageRequest, page: Page<unknown>): ListLinks {
  const { limit: _limit, page: _page, ...rest } = query;
  const link = (pageParams: Record<string, string>) => {
    const qs = formatQuery({ ...rest, page: pageParams });
    return `${path}?${qs}`;
  };
  const size = String(request.size);
  const pages = Math.ceil(page.count / request.size);
  const meta = { pages, count: page.count };
  if (request.mode === 'cursor') {
    return {
      self: link({ cursor: request.cursor ?? '', size }),
      next: page.nextCursor ? link({ cursor: page.nextCursor, size }) : null,
      meta,
    };
  }
  const n = request.number;
  const last = Math.max(pages, 1);
  return {
    self: link({ number: String(n), size }),
    prev: n > 1 ? link({ number: String(Math.min(n - 1, last)), size }) : null,
    next: n < pages ? link({ number: String(n + 1), size }) : null,
    first: link({ number: '1', size }),
    last: link({ number: String(last), size }),
    meta,
  };
}

/** The reply of every list: the page's documents and the links of its collection. */
export function listReply<T>(
  call: { page: PageRequest; request: { path: string; query: Query } },
  page: Page<T>,
  document: (record: T) => ResourceObject,
): Reply {
  return list(
    page.records.map((record) => document(record)),
    listLinks(call.request.path, call.request.query, call.page, page),
  );
}
