/**
 * What each function's entry bundles (lib/handler-entry.ts), built as `cdk synth` builds it: an
 * operation's entry carries its own operation and not its resource's other ones; a plain page
 * carries neither the pipeline nor the AWS clients; the description's function carries the whole
 * OpenAPI description (docs/openapi.json, bundled as JSON), the reference page's the page rendered
 * ahead (not the renderer), and both stay well inside what a quick
 * cold start can load.
 */
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { entrySource } from '../../lib/handler-entry.ts';
import { repositoryRoot } from '../../lib/service-function.ts';
import { routes } from '../../shared/routes.ts';
import { STACK_BUILD_OPTIONS } from '../support/bundling.ts';

/** The bundle of `operation`'s entry: its size, and the bytes each source file put in it. */
async function bundleOf(operation: string): Promise<{ size: number; text: string; bytesFrom: (file: string) => number }> {
  const route = routes.find((candidate) => candidate.operation === operation);
  if (!route) throw new Error(`no route ${operation}`);
  const result = await build({
    stdin: {
      contents: entrySource(path.join(repositoryRoot, route.handler.module), route.handler.factory ?? 'handler'),
      resolveDir: repositoryRoot,
      loader: 'ts',
    },
    ...STACK_BUILD_OPTIONS,
    sourcemap: false,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const [bundle] = result.outputFiles;
  const [output] = Object.values((result.metafile as Metafile).outputs);
  return {
    size: bundle?.contents.byteLength ?? 0,
    text: bundle?.text ?? '',
    bytesFrom: (file) => output?.inputs[file]?.bytesInOutput ?? 0,
  };
}

describe("an operation's entry", () => {
  it("carries its own operation, not its resource's other ones", async () => {
    // Generating a product token is products.tokens.generate's alone (shared/resources/tokens/generate.ts).
    const generation = 'shared/resources/tokens/generate.ts';
    expect((await bundleOf('products.tokens.generate')).bytesFrom(generation)).toBeGreaterThan(0);
    expect((await bundleOf('products.list')).bytesFrom(generation)).toBe(0);
  });

  it("carries none of the data model's declarations (they are docs/data-model.md's alone)", async () => {
    // Validation and activation load the entities that declare the most (licenses, machines, components).
    for (const operation of ['licenses.validate', 'machines.create', 'components.create']) {
      const { text } = await bundleOf(operation);
      expect(text, operation).toContain('LICENSE_KEY');
      expect(text, operation).not.toContain('usedBy');
      expect(text, operation).not.toContain('SHA-256 of a license');
    }
  });

  it('of a plain page carries neither the pipeline nor the AWS clients', async () => {
    const form = await bundleOf('passwords.form');
    expect(form.bytesFrom('shared/http/pipeline.ts')).toBe(0);
    expect(form.size).toBeGreaterThan(0);
    expect(form.size).toBeLessThan(16 * 1024);
  });
});

const LIMIT_BYTES = 500 * 1024;

describe.each(['openapi.retrieve', 'reference.page'])('%s', (operation) => {
  it(`bundles to less than ${LIMIT_BYTES / 1024} KB`, async () => {
    const { size } = await bundleOf(operation);
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThan(LIMIT_BYTES);
  });
});

describe('reference.page', () => {
  it('carries the page rendered ahead, neither the renderer nor the description', async () => {
    const page = await bundleOf('reference.page');
    expect(page.bytesFrom('shared/reference/rendered-page.json')).toBeGreaterThan(0);
    for (const file of ['docs/openapi.json', 'shared/reference/reference-schema.ts', 'shared/reference/reference-document.ts']) {
      expect(page.bytesFrom(file), file).toBe(0);
    }
  });
});
