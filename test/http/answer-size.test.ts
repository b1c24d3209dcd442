/**
 * The bound on answers over HTTP (docs/rules.md §3.3, §4): the largest legal page of licenses —
 * a hundred, each with a 4,096-character key, a 255-character name and 16 KB of metadata, all of
 * characters JSON escapes — would be some 6.5 MB as Lambda sends it, over what it may. It is
 * 422 ANSWER_TOO_LARGE, asking for a smaller page; half the page is answered.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { KEY_MAX } from '#shared/resources/licenses/entity.ts';
import { METADATA_MAX_BYTES } from '#shared/resources/rules.ts';
import { expectError, newAccount } from '../support/client.ts';
import { licensing } from '../support/licensing.ts';

let l: ReturnType<typeof licensing>;

/** Characters JSON writes as six bytes (`\u0001`), which Lambda's JSON of the answer makes seven. */
const escaped = (length: number) => '\u0001'.repeat(length);
/** Metadata of METADATA_MAX_BYTES, every character a quote: two bytes in the limit, four once Lambda escapes the body. */
const LARGEST_METADATA = { a: '"'.repeat((METADATA_MAX_BYTES - '{"a":""}'.length) / 2) };

beforeAll(async () => {
  l = licensing(await newAccount());
  const product = await l.product();
  const policy = await l.policy(product.id);
  // Four at a time: enough to keep the local stack busy.
  const workers = Array.from({ length: 4 }, async () => {
    for (let n = 0; n < 25; n++) {
      const key = `${escaped(KEY_MAX - 36)}${randomUUID()}`;
      await l.license(policy.id, { key, name: escaped(255), metadata: LARGEST_METADATA });
    }
  });
  await Promise.all(workers);
});

describe('the largest page', () => {
  it('is 422 ANSWER_TOO_LARGE, asking for a smaller page; half of it is answered', async () => {
    const largest = await l.api('GET', '/licenses?page[size]=100');
    expectError(largest, 422, { code: 'ANSWER_TOO_LARGE', detail: /^The answer would be \d+ bytes, .*a smaller page\[size\]/ });
    expect(largest.body.errors[0]).not.toHaveProperty('source');
    const half = await l.api('GET', '/licenses?page[size]=50');
    expect(half.status).toBe(200);
    expect(half.body.data).toHaveLength(50);
    expect(half.body.data[0].attributes.metadata).toEqual(LARGEST_METADATA);
  });
});
