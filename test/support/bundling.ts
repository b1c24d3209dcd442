/**
 * The esbuild options NodejsFunction derives from ServiceFunction's bundling props
 * (lib/service-function.ts): what the tests and the cold-start benchmark bundle a function with,
 * as `cdk synth` does.
 */
import path from 'node:path';
import type { BuildOptions } from 'esbuild';
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
  banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
  external: [],
  logLevel: 'error',
  // ServiceFunction's esbuildArgs: the SDK's credential chain cut to the link Lambda uses, semver left out.
  alias: {
    '@aws-sdk/credential-provider-node': path.join(root, 'shared/lambda-credentials.ts'),
    semver: path.join(root, 'shared/lambda-semver.ts'),
  },
};
