/**
 * The parent collections each entity declares (shared/licensing/slots.ts) place a record in the
 * same GSIs as the data already stored: a declaration's order is its index order, so reordering
 * one would move records to other indexes. docs/data-model.md documents the same layout.
 */
import { describe, expect, it } from 'vitest';
import { PARENTS, parentIn, parentsOf, slotOf } from '../../shared/licensing/slots.ts';

describe('parent slots', () => {
  it('keep the stored layout: slot i is GSI(i+2)', () => {
    const slots = Object.fromEntries(
      Object.entries(PARENTS).map(([type, parents]) => [
        type,
        Object.fromEntries(Object.keys(parents).map((name) => [name, slotOf(type as keyof typeof PARENTS, name as never)])),
      ]),
    );
    expect(slots).toEqual({
      policies: { product: 0 },
      licenses: { policy: 0, product: 1, owner: 2 },
      machines: { license: 0, product: 1, owner: 2 },
      components: { machine: 0, license: 1, product: 2, owner: 3 },
      processes: { machine: 0, license: 1, product: 2, owner: 3 },
    });
  });

  it('name a parent collection by the name the child gives it', () => {
    expect(parentIn('machines', 'owner', 'u')).toEqual({ type: 'users', id: 'u', slot: 2 });
    expect(parentsOf('licenses', { policy: 'p', product: 'q', owner: null })).toEqual([
      { type: 'policies', id: 'p' },
      { type: 'products', id: 'q' },
      undefined,
    ]);
  });
});
