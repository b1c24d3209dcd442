/**
 * The esbuild options NodejsFunction derives from ServiceFunction's bundling props
 * (lib/service-function.ts, whose banner and aliases this takes): what the tests and the
 * cold-start benchmark bundle a function with, as `cdk synth` does.
 */
import path from 'node:path';
import type { BuildOptions } from 'esbuild';
import { BUNDLE_ALIASES, BUNDLE_BANNER } from '../../lib/service-function.ts';
import { root } from './imports.ts';

export const STACK_BUILD_OPTIONS: BuildOptions = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  banner: { js: BUNDLE_BANNER },
  external: [],
  logLevel: 'error',
  alias: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([module, file]) => [module, path.join(root, file)])),
};
