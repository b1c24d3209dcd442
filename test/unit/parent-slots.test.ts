/**
 * The parent collections each entity declares (shared/licensing/slots.ts) place a record in the
 * same GSIs as the data already stored: a declaration's order is its index order, so reordering
 * one would move records to other indexes. docs/data-model.md documents the same layout. What a
 * removal walks and what a user owns are read from the same declarations.
 */
import { describe, expect, it } from 'vitest';
import { HANGING } from '../../shared/licensing/graph.ts';
import { PARENTS, parentIn, parentsOf, slotOf } from '../../shared/licensing/slots.ts';
import { manifest } from '../../shared/resources/manifest.ts';
import { OWNED } from '../../shared/resources/users/owners.ts';

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
      keys: { policy: 0, product: 1 },
      licenses: { policy: 0, product: 1, owner: 2 },
      'license-users': { license: 0, owner: 1, product: 2 },
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

  it('give each removable record what hangs on it, deepest first, and each user what it owns', () => {
    const at = (type: string, slot: number) => ({ type, slot });
    expect(HANGING).toEqual({
      products: [
        at('processes', 2),
        at('components', 2),
        at('machines', 1),
        at('license-users', 2),
        at('licenses', 1),
        at('keys', 1),
        at('policies', 0),
      ],
      policies: [at('licenses', 0), at('keys', 0)],
      licenses: [at('processes', 1), at('components', 1), at('machines', 0), at('license-users', 0)],
      machines: [at('processes', 0), at('components', 0)],
    });
    expect(OWNED).toEqual([at('licenses', 2), at('license-users', 1), at('machines', 2), at('components', 3), at('processes', 3)]);
  });

  it('come from a manifest that lists every parent before its children', () => {
    const order = Object.keys(manifest);
    for (const [child, parents] of Object.entries(PARENTS)) {
      for (const parent of Object.values(parents) as string[]) {
        expect(order.indexOf(parent), `${parent} before ${child}`).toBeLessThan(order.indexOf(child));
      }
    }
  });
});
