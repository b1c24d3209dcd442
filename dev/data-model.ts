/**
 * docs/data-model.md's generated parts, from what the code declares: the access patterns each
 * module performs (`ACCESS_PATTERNS`), the kinds of uniqueness marker each entity's records hold
 * (`MARKER_KINDS`) and the record types' key prefixes (`PREFIXES`). Each part sits between
 * `<!-- generated: <part> -->` and `<!-- end of generated part -->`; the rest of the document is
 * written by hand. `npm run docs` writes them; a test holds the document to them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AccessPattern, MarkerKind } from '../shared/store/data-model.ts';
import { PREFIXES } from '../shared/store/keys.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The folders whose modules may declare: the runtime's. */
const DECLARING = ['shared', 'functions'];

function modulesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return modulesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

export interface Declared<T> {
  /** The declaring module, from the repository's root. */
  module: string;
  value: T;
}

/** Every declaration exported under `name`, found by reading the modules: a new one is listed nowhere. */
async function declarations<T>(name: string): Promise<Declared<T>[]> {
  const exported = new RegExp(`^export const ${name}\\b`, 'm');
  const modules = DECLARING.flatMap(modulesUnder)
    .filter((module) => exported.test(readFileSync(join(ROOT, module), 'utf8')))
    .sort();
  const found: Declared<T>[] = [];
  for (const module of modules) {
    const values = (await import(join(ROOT, module)))[name] as readonly T[];
    found.push(...values.map((value) => ({ module, value })));
  }
  return found;
}

/** The access patterns, by number. */
export const accessPatterns = async () => (await declarations<AccessPattern>('ACCESS_PATTERNS')).sort((a, b) => a.value.n - b.value.n);

/** The kinds of uniqueness marker, by kind. */
export const markerKinds = async () =>
  (await declarations<MarkerKind>('MARKER_KINDS')).sort((a, b) => a.value.kind.localeCompare(b.value.kind));

/** A Markdown table, its columns padded to their widest cell as the formatter (Biome) lays them out. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const bad = [header, ...rows].flat().find((cell) => cell.includes('|') || cell.includes('\n'));
  if (bad !== undefined) throw new Error(`a table cell may not hold "|" or a line break: ${bad}`);
  const widths = header.map((_, i) => Math.max(3, ...[header, ...rows].map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** The resource folder a module belongs to (`licenses`), or its path when it belongs to none. */
const holderOf = (module: string) => /^shared\/resources\/([^/]+)\//.exec(module)?.[1] ?? `\`${module}\``;

async function parts(): Promise<Record<string, string>> {
  const patterns = await accessPatterns();
  const kinds = await markerKinds();
  return {
    'record-types': `\`<TYPE>\` is the key prefix of a type (\`PREFIXES\`, shared/store/keys.ts): ${Object.entries(PREFIXES)
      .map(([type, prefix]) => `\`${prefix}\` (${type})`)
      .join(', ')}.`,
    'marker-kinds': table(
      ['Kind', 'Held by', 'Value'],
      kinds.map(({ module, value }) => [`\`${value.kind}\``, holderOf(module), value.value]),
    ),
    'access-patterns': table(
      ['#', 'Pattern', 'Operation', 'Index', 'Key condition', 'Used by', 'Tests', 'Declared in'],
      patterns.map(({ module, value }) => [
        String(value.n),
        value.name,
        value.operation,
        value.index,
        value.key,
        value.usedBy,
        value.tests.map((test) => `\`${test}\``).join(', '),
        `\`${module}\``,
      ]),
    ),
  };
}

const BEGIN = (part: string) => `<!-- generated: ${part} -->`;
const END = '<!-- end of generated part -->';

/** The document with each generated part written anew from the declarations. */
export async function renderDataModel(document: string): Promise<string> {
  let text = document;
  for (const [part, body] of Object.entries(await parts())) {
    const start = text.indexOf(BEGIN(part));
    const end = text.indexOf(END, start);
    if (start < 0 || end < 0) throw new Error(`docs/data-model.md has no place for its generated part "${part}"`);
    text = `${text.slice(0, start)}${BEGIN(part)}\n\n${body}\n\n${text.slice(end)}`;
  }
  return text;
}

export const DATA_MODEL_DOCUMENT = join(ROOT, 'docs/data-model.md');
