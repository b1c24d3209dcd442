import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HandlerSource } from '../shared/routes.ts';

/**
 * The file a function is bundled from. A module that exports `handler` (a worker's) is its own
 * entry. An operation's handler is built by a factory of its resource's handlers.ts, which exports
 * one per operation: its entry, written into `directory`, imports that factory alone and calls it
 * once, so esbuild leaves the resource's other operations (and the services only they use) out of
 * the bundle. Written only when its text changes, so repeated syntheses leave it untouched.
 */
export function entryFile(codeRoot: string, directory: string, operation: string, handler: HandlerSource): string {
  const module = path.resolve(codeRoot, handler.module);
  if (!handler.factory) return module;
  const file = path.join(directory, `${operation}.ts`);
  const text = entrySource(path.relative(directory, module), handler.factory);
  mkdirSync(directory, { recursive: true });
  if (readIfExists(file) !== text) writeFileSync(file, text);
  return file;
}

/** The entry's text: `specifier` is the handlers module as the entry imports it. */
export function entrySource(specifier: string, factory: string): string {
  const relative = specifier.startsWith('.') || path.isAbsolute(specifier) ? specifier : `./${specifier}`;
  return `import { ${factory} } from '${relative.split(path.sep).join('/')}';\n\nexport const handler = ${factory}();\n`;
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
