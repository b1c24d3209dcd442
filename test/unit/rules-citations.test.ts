/**
 * Every section of docs/rules.md that the code, the tests and the other docs cite is there: each
 * `docs/rules.md §<n>` or `§<n>.<m>` (the README's `[rules §<n>](docs/rules.md)` alike), with every
 * section of a list or range that follows it (`§5.2, §7.1`, `(§5.2, §6)`, `§18–§20`, `§1–2`),
 * names a numbered heading of docs/rules.md (`## 18. Licenses`, `### 18.5 Lifecycle actions`).
 * A renumbering of docs/rules.md that leaves a citation behind fails here, naming the file and
 * the line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, root } from '../support/imports.ts';

/** Where citations live: the code, the tests, the stack, the tools, and every other document. */
const TREES = ['shared', 'functions', 'lib', 'bin', 'dev', 'test'];
const TEXT = /\.(ts|tsx|js|mjs|cjs|md)$/;

/**
 * A citation: `rules.md` (or `rules`) then, past spaces, a line break, a comment's `*` or an
 * opening parenthesis, a section, and the sections listed or ranged after it.
 */
const CITATION = /\brules(?:\.md)?[\s*]*\(?(§\d+(?:\.\d+)?(?:(?:\s*,\s*§|\/§|\s*–\s*§?)\d+(?:\.\d+)?)*)/g;

interface Citation {
  where: string;
  section: string;
}

/** The sections a text cites, each with the file and line it is on. */
function citationsIn(path: string, text: string): Citation[] {
  return [...text.matchAll(CITATION)].flatMap((match) => {
    const line = text.slice(0, match.index).split('\n').length;
    return [...(match[1] ?? '').matchAll(/\d+(?:\.\d+)?/g)].map(([section]) => ({ where: `${path}:${line}`, section }));
  });
}

const documents = filesUnder('docs', /\.md$/).filter((file) => file !== 'docs/rules.md');
const files = [...TREES.flatMap((tree) => filesUnder(tree, TEXT)), ...documents, 'README.md'];
const citations = files.flatMap((file) => citationsIn(file, readFileSync(join(root, file), 'utf8')));

/** The numbers of docs/rules.md's headings: `## 18. Licenses` is 18, `### 18.5 Lifecycle actions` 18.5. */
const sections = new Set(
  [...readFileSync(join(root, 'docs/rules.md'), 'utf8').matchAll(/^#{2,6} (\d+(?:\.\d+)*)\.? /gm)].map(([, number]) => number),
);

describe('citations of docs/rules.md', () => {
  it('reads sections, lists and ranges as they are written', () => {
    const cited = (text: string) => citationsIn('x', text).map(({ section }) => section);
    const rules = 'rules.md';
    expect(cited(`(docs/${rules} §5.2, §7.1)`)).toEqual(['5.2', '7.1']);
    expect(cited(`docs/${rules} (§5.2, §6, §23.1) and`)).toEqual(['5.2', '6', '23.1']);
    expect(cited(`(docs/${rules} §2, §18–§20, §4–5)`)).toEqual(['2', '18', '20', '4', '5']);
    expect(cited(`[rules §22](docs/${rules})`)).toEqual(['22']);
    expect(cited(`heartbeat (docs/${rules}\n * §22.1) it holds`)).toEqual(['22.1']);
    expect(cited(`(docs/${rules} §2.3). A request`)).toEqual(['2.3']);
    expect(cited(`the rules limit 60 requests (docs/${rules}), and`)).toEqual([]);
  });

  it('finds the numbered headings of docs/rules.md and the citations of the code, the tests and the docs', () => {
    expect([...sections]).toEqual(expect.arrayContaining(['1', '1.1', '18', '18.5', '29']));
    // Enough of both that a reading gone wrong cannot pass by finding nothing.
    expect(sections.size).toBeGreaterThan(100);
    expect(new Set(citations.map(({ where }) => where.split(':')[0])).size).toBeGreaterThan(80);
  });

  it('cites only sections docs/rules.md has', () => {
    const missing = citations.filter(({ section }) => !sections.has(section)).map(({ where, section }) => `${where}: §${section}`);
    expect(missing, 'citations of sections docs/rules.md does not have').toEqual([]);
  });
});
