/**
 * Pagination (docs/rules.md §4), on GET /users of an account with 26 users:
 * page[number]/page[size], limit, the top-level links and links.meta, the bounds, and the
 * keyset page[cursor] extension.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, newAccount, type Reply, type TestAccount, userBody } from '../support/client.ts';

const CREATED = 25;
const TOTAL = CREATED + 1; // and the admin

let account: TestAccount;
let users: string;
/** Every user id of the account, in the order creation finished (not the list order). */
const ids: string[] = [];

beforeAll(async () => {
  account = await newAccount();
  users = `${account.path}/users`;
  ids.push(account.adminId);
  for (let batch = 0; batch < CREATED / 5; batch++) {
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        call('POST', users, { token: account.adminToken, body: userBody({ email: `${randomUUID().slice(0, 8)}@page.example` }) }),
      ),
    );
    for (const reply of replies) {
      if (reply.status !== 201) throw new Error(`user not created: ${JSON.stringify(reply.body)}`);
      ids.push(reply.body.data.id);
    }
  }
});

const list = (query = '', token = account.adminToken) => call('GET', `${users}${query}`, { token });
const follow = (link: string, token = account.adminToken) => call('GET', link, { token });

/**
 * A link is exactly `path?query` with these parameters (in any order), starting with /v1/,
 * brackets percent-encoded.
 */
function expectLink(link: unknown, path: string, params: Record<string, string>) {
  expect(typeof link, String(link)).toBe('string');
  const text = link as string;
  expect(text.startsWith('/v1/')).toBe(true);
  expect(text).not.toMatch(/[[\]]/);
  const [linkPath, query = ''] = text.split('?');
  expect(linkPath).toBe(path);
  const actual = query.split('&').filter(Boolean).sort();
  const expected = Object.entries(params)
    .map(([name, value]) => `${name.replace(/\[/g, '%5B').replace(/\]/g, '%5D')}=${encodeURIComponent(value)}`)
    .sort();
  expect(actual, text).toEqual(expected);
}

const pageParams = (number: number, size: number) => ({ 'page[number]': String(number), 'page[size]': String(size) });

function expectPageLinks(reply: Reply, number: number, size: number, pages: number, extra: Record<string, string> = {}) {
  const links = reply.body.links;
  expectLink(links.self, users, { ...extra, ...pageParams(number, size) });
  expectLink(links.first, users, { ...extra, ...pageParams(1, size) });
  expectLink(links.last, users, { ...extra, ...pageParams(pages, size) });
  if (number === 1) expect(links.prev).toBeNull();
  else expectLink(links.prev, users, { ...extra, ...pageParams(Math.min(number - 1, pages), size) });
  if (number >= pages) expect(links.next).toBeNull();
  else expectLink(links.next, users, { ...extra, ...pageParams(number + 1, size) });
  expect(links.meta).toEqual({ pages, count: TOTAL });
}

const idsOf = (reply: Reply) => reply.body.data.map((user: any) => user.id as string);

/** All users by page number, following `next` links from the first page. */
async function walkByNumber(size: number) {
  const seen: any[] = [];
  let reply = await list(`?page[size]=${size}&page[number]=1`);
  for (let guard = 0; guard < 50; guard++) {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    seen.push(...reply.body.data);
    if (reply.body.links.next === null) break;
    reply = await follow(reply.body.links.next);
  }
  return seen;
}

function expectNewestFirstWithoutGapsOrDuplicates(seen: any[]) {
  const seenIds = seen.map((user) => user.id);
  expect(new Set(seenIds).size).toBe(seenIds.length);
  expect([...seenIds].sort()).toEqual([...ids].sort());
  for (let i = 1; i < seen.length; i++) {
    expect(Date.parse(seen[i].attributes.created)).toBeLessThanOrEqual(Date.parse(seen[i - 1].attributes.created));
  }
}

describe.concurrent('page-number pagination', () => {
  it('gives 10 records by default with exact links and links.meta', async () => {
    const reply = await list();
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).toHaveLength(10);
    expectPageLinks(reply, 1, 10, 3);
  });

  it('honours page[size] and page[number]', async () => {
    const reply = await list('?page[size]=7&page[number]=2');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).toHaveLength(7);
    expectPageLinks(reply, 2, 7, 4);
  });

  it('accepts percent-encoded brackets in the query', async () => {
    const reply = await list('?page%5Bsize%5D=7&page%5Bnumber%5D=2');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).toHaveLength(7);
    expectPageLinks(reply, 2, 7, 4);
  });

  it('gives the rest on the last page, with next null', async () => {
    const reply = await list('?page[number]=3');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).toHaveLength(TOTAL - 20);
    expectPageLinks(reply, 3, 10, 3);
    expect(reply.body.links.next).toBeNull();
  });

  it('keeps other query parameters in every link', async () => {
    const reply = await list('?marker=x%20y&page[size]=5&page[number]=2');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).toHaveLength(5);
    expectPageLinks(reply, 2, 5, 6, { marker: 'x y' });
  });

  it('lists newest first without duplicates or gaps when walking all pages', async () => {
    const seen = await walkByNumber(10);
    expect(seen).toHaveLength(TOTAL);
    expectNewestFirstWithoutGapsOrDuplicates(seen);
    // The last created users come first, the admin (created with the account) last.
    expect(seen.at(-1).id).toBe(account.adminId);
  });

  it('gives the same order at every page size', async () => {
    const [bySeven, byHundred] = await Promise.all([walkByNumber(7), walkByNumber(100)]);
    expect(bySeven.map((user) => user.id)).toEqual(byHundred.map((user) => user.id));
    expect(byHundred).toHaveLength(TOTAL);
  });

  it('answers a page beyond the last with empty data and links', async () => {
    const reply = await list('?page[number]=9');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).toEqual([]);
    const links = reply.body.links;
    expectLink(links.self, users, pageParams(9, 10));
    expectLink(links.first, users, pageParams(1, 10));
    expectLink(links.last, users, pageParams(3, 10));
    expect(links.next).toBeNull();
    expect(links.meta).toEqual({ pages: 3, count: TOTAL });
  });

  it('accepts the largest page size, 100', async () => {
    const reply = await list('?page[size]=100');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.data).toHaveLength(TOTAL);
    expectPageLinks(reply, 1, 100, 1);
  });
});

describe.concurrent('limit', () => {
  it('sets the page size when page is absent', async () => {
    const first = await list('?limit=5');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toHaveLength(5);
    expect(first.body.links.meta).toEqual({ pages: 6, count: TOTAL });
    expect(first.body.links.prev).toBeNull();
    const second = await follow(first.body.links.next);
    expect(second.status).toBe(200);
    expect(second.body.data).toHaveLength(5);
    const page2 = await list('?page[size]=5&page[number]=2');
    expect(idsOf(second)).toEqual(idsOf(page2));
    expect(idsOf(first).filter((id: string) => idsOf(second).includes(id))).toEqual([]);
    const last = await follow(first.body.links.last);
    expect(last.body.data).toHaveLength(1);
    expect(last.body.links.next).toBeNull();
  });

  it('accepts 1 and 100', async () => {
    const [one, hundred] = await Promise.all([list('?limit=1'), list('?limit=100')]);
    expect(one.status).toBe(200);
    expect(one.body.data).toHaveLength(1);
    expect(one.body.links.meta).toEqual({ pages: TOTAL, count: TOTAL });
    expect(hundred.status).toBe(200);
    expect(hundred.body.data).toHaveLength(TOTAL);
  });
});

describe.concurrent('bounds (400 PARAMETERS_INVALID)', () => {
  const cases: Array<[string, string]> = [
    ['page[size]=0', 'page[size]'],
    ['page[size]=101', 'page[size]'],
    ['page[size]=abc', 'page[size]'],
    ['page[size]=-1', 'page[size]'],
    ['page[size]=2.5', 'page[size]'],
    ['page[number]=0', 'page[number]'],
    ['page[number]=abc', 'page[number]'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['page=3', 'page'],
  ];
  for (const [query, parameter] of cases) {
    it(`refuses ?${query} naming ${parameter}`, async () => {
      expectError(await list(`?${query}`), 400, { code: 'PARAMETERS_INVALID', source: { parameter } });
    });
  }
});

describe.concurrent('page[cursor]', () => {
  it('gives the first page for an empty cursor, with self and next links', async () => {
    const [cursor, numbered] = await Promise.all([list('?page[cursor]=&page[size]=10'), list('?page[number]=1&page[size]=10')]);
    expect(cursor.status, JSON.stringify(cursor.body)).toBe(200);
    expect(idsOf(cursor)).toEqual(idsOf(numbered));
    expectLink(cursor.body.links.self, users, { 'page[cursor]': '', 'page[size]': '10' });
    expect(typeof cursor.body.links.next).toBe('string');
    expect(cursor.body.links.next.startsWith(`${users}?`)).toBe(true);
    expect(cursor.body.links.next).not.toMatch(/[[\]]/);
    expect(cursor.body.links.next).toContain('page%5Bcursor%5D=');
    expect(cursor.body.links.next).toContain('page%5Bsize%5D=10');
  });

  it('visits every user exactly once, in the page-number order, following next to the end', async () => {
    const byNumber = (await walkByNumber(7)).map((user) => user.id);
    const byCursor: string[] = [];
    let reply = await list('?page[cursor]=&page[size]=7');
    let pages = 0;
    for (; pages < 50; pages++) {
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data.length).toBeLessThanOrEqual(7);
      byCursor.push(...idsOf(reply));
      if (reply.body.links.next === null) break;
      expectLink(reply.body.links.self, users, {
        'page[cursor]': new URLSearchParams(reply.body.links.self.split('?')[1]).get('page[cursor]')!,
        'page[size]': '7',
      });
      reply = await follow(reply.body.links.next);
    }
    expect(pages + 1).toBe(Math.ceil(TOTAL / 7));
    expect(byCursor).toHaveLength(TOTAL);
    expect(new Set(byCursor).size).toBe(TOTAL);
    expect(byCursor).toEqual(byNumber);
  });

  it('refuses a garbage cursor with 400 PARAMETERS_INVALID', async () => {
    for (const cursor of ['garbage', 'not%20a%20cursor', Buffer.from('2020-01-01T00:00:00.000Z').toString('base64url')]) {
      expectError(await list(`?page[cursor]=${cursor}&page[size]=5`), 400, {
        code: 'PARAMETERS_INVALID',
        source: { parameter: 'page[cursor]' },
      });
    }
  });
});
