/**
 * The reference's two functions carry the whole OpenAPI description (docs/openapi.json, bundled
 * as JSON): bundled as `cdk synth` bundles them, each stays well inside what a quick cold start
 * can load.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { entrySource } from '../../lib/handler-entry.ts';
import { repositoryRoot } from '../../lib/service-function.ts';
import { routes } from '../../shared/routes.ts';

const LIMIT_BYTES = 500 * 1024;

const referenceRoutes = routes.filter((route) => route.operation === 'openapi.retrieve' || route.operation === 'reference.page');

describe.each(referenceRoutes)('$operation', (route) => {
  it(`bundles to less than ${LIMIT_BYTES / 1024} KB`, async () => {
    const result = await build({
      // The function's entry as the stack writes it (lib/handler-entry.ts).
      stdin: {
        contents: entrySource(path.join(repositoryRoot, route.handler.module), route.handler.factory ?? 'handler'),
        resolveDir: repositoryRoot,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      mainFields: ['module', 'main'],
      minify: true,
      logLevel: 'silent',
    });
    const [bundle] = result.outputFiles;
    expect(bundle?.contents.byteLength).toBeGreaterThan(0);
    expect(bundle?.contents.byteLength).toBeLessThan(LIMIT_BYTES);
  });
});
