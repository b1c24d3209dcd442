/**
 * docs/data-model.md's table of parent collections says what the entities declare (each
 * resource's parents, listed by the manifest): a parent added, removed or moved in a declaration
 * and not in the document fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PARENTS, slotOf } from '#shared/licensing/slots.ts';

const SINGULAR: Record<string, string> = {
  policies: 'policy',
  licenses: 'license',
  machines: 'machine',
  components: 'component',
  processes: 'process',
  products: 'product',
  users: 'user',
};

/** The rows of the table under "Parent collections by slot": type → its GSI2.. cells. */
function documentedRows(): Map<string, string[]> {
  const text = readFileSync(new URL('../../docs/data-model.md', import.meta.url), 'utf8');
  const start = text.indexOf('Parent collections by slot');
  expect(start, 'docs/data-model.md has its table of parent collections').toBeGreaterThan(0);
  const rows = new Map<string, string[]>();
  for (const line of text.slice(start).split('\n').slice(1)) {
    if (rows.size > 0 && !line.startsWith('|')) break;
    if (!line.startsWith('|') || line.startsWith('| Type') || line.startsWith('| ---')) continue;
    const [type = '', ...cells] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    rows.set(type, cells);
  }
  return rows;
}

describe('the parent collections of docs/data-model.md', () => {
  it('are the ones each entity declares, in the GSI its place gives', () => {
    const rows = documentedRows();
    for (const [type, parents] of Object.entries(PARENTS)) {
      const row = rows.get(SINGULAR[type] ?? type);
      expect(row, `a row for ${type}`).toBeDefined();
      const expected = Object.entries(parents).map(([name, parentType]) =>
        name === SINGULAR[parentType] ? name : `${name} (${SINGULAR[parentType] ?? parentType})`,
      );
      const documented = (row ?? []).filter((cell) => cell !== '');
      expect(documented, type).toEqual(expected);
      for (const name of Object.keys(parents)) expect(row?.[slotOf(type as keyof typeof PARENTS, name as never)]).toContain(name);
    }
  });
});
