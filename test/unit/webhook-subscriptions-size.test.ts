/**
 * An environment's webhook endpoints share ONE subscriptions item (shared/resources/webhook-endpoints/
 * subscriptions.ts): at its largest — MAX_ENDPOINTS endpoints, each with a URL of URL_MAX
 * characters of 4 UTF-8 bytes and every kind subscribed — it must stay under DynamoDB's 400 KB
 * per item. Measured here from the constants as DynamoDB measures an item (the arithmetic of
 * MAX_ENDPOINTS' comment); test/http/input-bounds.test.ts writes that item for real.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventKinds } from '#shared/events/kinds.ts';
import { MAX_ENDPOINTS, subscriptionRules, URL_MAX } from '#shared/resources/webhook-endpoints/entity.ts';
import { environmentMembership, subscriptionsKey } from '#shared/store/keys.ts';

const ITEM_MAX_BYTES = 400 * 1024;

/**
 * DynamoDB's size of a value: a string its UTF-8 bytes, a number at most 21 bytes, a boolean or
 * null 1 byte; a map or a list 3 bytes, and per element 1 byte besides its name and value.
 */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return 21;
  if (typeof value === 'boolean' || value === null) return 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + sizeOf(element), 0);
  return 3 + Object.entries(value as object).reduce((sum, [name, element]) => sum + 1 + Buffer.byteLength(name) + sizeOf(element), 0);
}

/** An item's size: each attribute's name and value. */
const itemSize = (item: Record<string, unknown>) =>
  Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + sizeOf(value), 0);

describe("an environment's subscriptions item", () => {
  it('at its largest stays under 400 KB', () => {
    const accountId = randomUUID();
    const environmentId = randomUUID();
    // Every kind and `*`, as many times as a body may send them: kept once each.
    const subscriptions = subscriptionRules(['*', ...eventKinds(), ...eventKinds(), '*']);
    expect(subscriptions).toHaveLength(eventKinds().length + 1);
    const item: Record<string, unknown> = {
      ...subscriptionsKey(accountId, environmentId),
      ENVPK: environmentMembership(accountId, environmentId),
    };
    for (let i = 0; i < MAX_ENDPOINTS; i++) {
      const id = randomUUID();
      // The widest character UTF-8 has: 4 bytes.
      item[`endpoint#${id}`] = { id, url: '😀'.repeat(URL_MAX), enabled: true, subscriptions };
    }
    expect(itemSize(item)).toBeLessThan(ITEM_MAX_BYTES);
  });
});
