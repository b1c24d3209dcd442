import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { fallback, routes, schedules, streamWorkers, workers } from '../../shared/routes.ts';
import { STACK_BUILD_OPTIONS } from '../support/bundling.ts';
import { filesUnder, relative, root, specifiers, target } from '../support/imports.ts';

/** The code of the service's functions: what the bundles are made from. */
const RUNTIME = ['shared', 'functions'];
/** What the runtime never imports. */
const FORBIDDEN = ['dev', 'test'];
/**
 * The domain: one folder per resource (its entity, policy, service, document, events), reached
 * through the HTTP layer, never the reverse. Each resource's operations.ts and handlers.ts are its
 * face to HTTP (the declarations the pipeline reads, the handlers it runs) and may use it.
 */
const DOMAIN = 'shared/resources';
const isOperations = (file: string) => file.endsWith('/operations.ts') || file.endsWith('/handlers.ts');
const HTTP = 'shared/http';

const under = (file: string, folder: string) => file === folder || file.startsWith(`${folder}/`);

describe('the functions’ bundles', () => {
  const handlers = [...new Set([...routes, ...workers, ...schedules, ...streamWorkers, fallback].map((entry) => entry.handler.module))];

  it('carry nothing of dev/ (the local stack, fault injection) or test/', async () => {
    expect(handlers.length).toBeGreaterThan(20);
    // One build of every handler with the stack's options (lib/service-function.ts), kept in memory:
    // minifying and source maps change what is written, not what is read, and are left out.
    const { metafile } = await build({
      ...STACK_BUILD_OPTIONS,
      minify: false,
      sourcemap: false,
      entryPoints: handlers.map((handler) => path.join(root, handler)),
      outdir: path.join(root, 'cdk.out', 'runtime-boundary'),
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(metafile.inputs).map((input) => relative(path.resolve(root, input)));
    // The bundles did read the service's own code (an empty list would pass anything).
    expect(inputs).toContain('shared/client-hooks.ts');
    const outside = inputs.filter((input) => FORBIDDEN.some((folder) => under(input, folder)) || /(^|\/)faults\.[cm]?[jt]s$/.test(input));
    expect(outside).toEqual([]);
    // Nor the route table, which loads every resource's declarations: a function reads its own.
    expect(inputs).not.toContain('shared/routes.ts');
  });
});

/** Every source file under `folder`, relative to the root. */
const sources = (folder: string): string[] => filesUnder(folder, /\.[cm]?[jt]s$/);

/** Every import of a file under one of `from` of a file under one of `to`, as `file → specifier`. */
function crossings(from: readonly string[], to: readonly string[]): string[] {
  return from.flatMap(sources).flatMap((file) =>
    specifiers(file)
      .filter((specifier) => {
        const imported = target(file, specifier);
        return imported !== undefined && to.some((folder) => under(imported, folder));
      })
      .map((specifier) => `${file} → ${specifier}`),
  );
}

describe('the import boundaries', () => {
  it('the runtime (shared/, functions/) imports nothing from dev/ or test/', () => {
    expect(RUNTIME.flatMap(sources).length).toBeGreaterThan(100);
    expect(crossings(RUNTIME, FORBIDDEN)).toEqual([]);
  });

  it('the domain imports nothing from the HTTP layer (shared/http)', () => {
    expect(sources(DOMAIN).filter((file) => !isOperations(file)).length).toBeGreaterThan(50);
    expect(crossings([DOMAIN], [HTTP]).filter((crossing) => !isOperations(crossing.split(' → ')[0] ?? ''))).toEqual([]);
  });

  it('sees the imports it checks', () => {
    // The scan itself: each form of import is found and resolved, so an empty answer above means no import, not a blind scan.
    expect(crossings(['shared/store'], ['shared/client-hooks.ts'])).not.toEqual([]);
    expect(crossings(['dev'], ['shared/http'])).toContain('dev/local/http-adapter.ts → #shared/http/errors.ts');
    expect(target('shared/resources/users/operations.ts', '../../http/declaration.ts')).toBe('shared/http/declaration.ts');
  });
});
