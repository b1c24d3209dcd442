import { describe, expect, it } from 'vitest';
import { familyOf, groupByFamily } from '../../lib/families.ts';
import { fallback, routes } from '../../shared/routes.ts';

describe('route families', () => {
  it.each([
    ['licenses.validateKey', 'licenses'],
    ['licenses.tokens.generate', 'licenses'],
    ['webhookEndpoints.create', 'webhooks'],
    ['webhookEvents.retry', 'webhooks'],
    ['passwords.request', 'users'],
    ['me.retrieve', 'tokens'],
    ['openapi.retrieve', 'reference'],
    ['reference.page', 'reference'],
    ['notFound', 'reference'],
    ['entitlements.attach', 'entitlements'],
    ['constructor.create', 'constructor'],
  ])('%s belongs to %s', (operation, family) => {
    expect(familyOf(operation)).toBe(family);
  });

  it('group every entry of the route table, and the fallback, under its family, in the order families first appear', () => {
    const entries = [...routes, fallback];
    const families = groupByFamily(entries);
    expect([...families.keys()]).toEqual([...new Set(entries.map((entry) => familyOf(entry.operation)))]);
    for (const [family, members] of families) {
      expect(members).toEqual(entries.filter((entry) => familyOf(entry.operation) === family));
    }
  });
});
