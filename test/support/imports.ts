/**
 * The repository's files and what a source file imports, read from their text: for the tests
 * that hold the codebase's import boundaries (test/infra/runtime-boundary.test.ts), keep the
 * manifest free of cycles (test/unit/manifest.test.ts) and read the code for what it cites or
 * raises (test/unit/rules-citations.test.ts, test/unit/error-codes.test.ts). Paths are relative to
 * the repository root, with forward slashes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

/** A path relative to the repository root, with forward slashes. */
export const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');

/** Every file under `folder` whose name matches `name`; hidden folders and node_modules are passed over. */
export function filesUnder(folder: string, name: RegExp): string[] {
  const directory = path.join(root, folder);
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const file = relative(path.join(directory, entry.name));
    if (entry.isDirectory()) return entry.name.startsWith('.') || entry.name === 'node_modules' ? [] : filesUnder(file, name);
    return name.test(entry.name) ? [file] : [];
  });
}

/**
 * What a file imports, as written: static and dynamic imports and re-exports, or, with
 * `valuesOnly`, the static imports that load a module when this one loads (not `import type`).
 */
export function specifiers(file: string, { valuesOnly = false } = {}): string[] {
  const code = readFileSync(path.join(root, file), 'utf8');
  const patterns = valuesOnly
    ? [/^import (?!type )[^'"]*?from '([^']+)'/gm, /^import '([^']+)'/gm]
    : [
        /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
        /\bimport\s*['"]([^'"]+)['"]/g,
        /\bimport\s*\(\s*['"`]([^'"`$]+)['"`]\s*[,)]/g,
      ];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => match[1] ?? '')).filter(Boolean);
}

/** The file an import names, relative to the root; undefined for a package. */
export function target(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) return relative(path.resolve(root, path.dirname(file), specifier));
  const subpath = /^#([^/]+)\/(.*)$/.exec(specifier);
  // package.json "imports": `#shared/*`, `#functions/*`, `#dev/*`, each its folder at the root.
  if (subpath) return `${subpath[1]}/${subpath[2]}`;
  return undefined;
}

/** Every file `start` loads when it loads, however far down (its value imports, theirs...). */
export function loadedBy(start: string): Set<string> {
  const reached = new Set<string>();
  const pending = [start];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    for (const specifier of specifiers(file, { valuesOnly: true })) {
      const imported = target(file, specifier);
      if (imported === undefined || reached.has(imported) || !existsSync(path.join(root, imported))) continue;
      reached.add(imported);
      pending.push(imported);
    }
  }
  return reached;
}
