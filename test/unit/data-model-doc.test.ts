/**
 * docs/data-model.md says what the code declares: its generated parts (access patterns, marker
 * kinds, key prefixes) are the ones the declarations give, each pattern's names and tests exist,
 * every "pattern N" cited is declared, and its table of parent collections is the entities'.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { accessPatterns, DATA_MODEL_DOCUMENT, renderDataModel } from '#dev/data-model.ts';
import { PARENTS, slotOf } from '#shared/licensing/slots.ts';
import { filesUnder } from '../support/imports.ts';

const SINGULAR: Record<string, string> = {
  policies: 'policy',
  keys: 'key',
  licenses: 'license',
  'license-users': 'license user',
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

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The numbers a test title of test/store/data-model.test.ts starts with (`'24, 25: …'`, `'27–30: …'`). */
function numbersOfTitle(title: string): number[] {
  const head = /^([\d, –]+):/.exec(title)?.[1] ?? '';
  return head.split(',').flatMap((part) => {
    const [from = '', to] = part.trim().split('–');
    return to === undefined ? [Number(from)] : Array.from({ length: Number(to) - Number(from) + 1 }, (_, i) => Number(from) + i);
  });
}

describe('the generated parts of docs/data-model.md', () => {
  it('are the ones the declarations give (run `npm run docs`)', async () => {
    const committed = readFileSync(DATA_MODEL_DOCUMENT, 'utf8');
    expect(committed, 'docs/data-model.md is out of date: run `npm run docs`').toBe(await renderDataModel(committed));
  });

  it('number every pattern once, with no gap', async () => {
    const numbers = (await accessPatterns()).map(({ value }) => value.n);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
  });

  it('name only functions and files that exist, and tests that exist and are about the pattern', async () => {
    const code = ['shared', 'functions', 'dev']
      .flatMap((folder) => filesUnder(folder, /\.ts$/))
      .map(read)
      .join('\n');
    const titles = [...read('test/store/data-model.test.ts').matchAll(/\bit\((['"])(.*?)\1/g)].map((match) => match[2] ?? '');
    for (const { module, value } of await accessPatterns()) {
      const where = `pattern ${value.n} (${module})`;
      for (const [, name = ''] of value.usedBy.matchAll(/`([^`]+)`/g)) {
        if (/^[a-z][A-Za-z]+$/.test(name)) expect(code, `${where} names \`${name}\``).toMatch(new RegExp(`(function|const) ${name}\\b`));
        else if (/^[a-z]+\/.*\.ts$/.test(name))
          expect(existsSync(new URL(`../../${name}`, import.meta.url)), `${where} names ${name}`).toBe(true);
      }
      for (const test of value.tests) {
        const file = ['.test.ts', '.ts'].map((end) => new URL(`../${test}${end}`, import.meta.url)).find((url) => existsSync(url));
        expect(file, `${where} cites test/${test}`).toBeDefined();
      }
      const cited = value.tests.includes('store/data-model');
      const tested = titles.some((title) => numbersOfTitle(title).includes(value.n));
      expect(tested, `${where}: store/data-model has a test titled by its number exactly when the pattern cites it`).toBe(cited);
    }
  });

  it('declare every pattern the code, the tests and the documents cite', async () => {
    const declared = new Set((await accessPatterns()).map(({ value }) => value.n));
    const texts = [
      ...['shared', 'functions', 'dev', 'test'].flatMap((folder) => filesUnder(folder, /\.ts$/)),
      'docs/data-model.md',
      'docs/rules.md',
      'docs/operations.md',
    ];
    for (const path of texts) {
      for (const [cited] of read(path).matchAll(/patterns? \d+(?:(?:, | and |–)\d+)*/g)) {
        for (const n of cited.match(/\d+/g) ?? []) expect(declared.has(Number(n)), `${path} cites ${cited}`).toBe(true);
      }
    }
  });
});
