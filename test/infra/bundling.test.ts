import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import type { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { describe, expect, it } from 'vitest';
import { LicensingStack } from '../../lib/licensing-stack.ts';
import { repositoryRoot } from '../../lib/service-function.ts';
import { baseSettings, cdkContext, functionFor } from './synthesize.ts';

// Bundles one real module with the local esbuild, as `cdk synth` does for every handler.
describe('a function bundle', () => {
  const app = new App({
    outdir: mkdtempSync(path.join(tmpdir(), 'licensing-bundle-')),
    context: cdkContext,
    builtinCloudFormationValidation: false,
  });
  const stack = new LicensingStack(app, 'LicensingService', {
    settings: baseSettings,
    routes: [],
    fallback: { operation: 'sdkProbe', handler: { module: 'test/infra/fixtures/sdk-handler.ts' }, access: [] },
    workers: [],
  });
  const asset = functionFor(stack, 'sdkProbe').node.findChild('Code') as Asset;
  const bundle = path.resolve(app.outdir, asset.assetPath);
  const code = readFileSync(path.join(bundle, 'index.mjs'), 'utf8');

  it('resolves the handler from the repository root', () => {
    expect(repositoryRoot).toBe(path.resolve(import.meta.dirname, '../..') + path.sep);
  });

  it('is an ES module that can still require(), as bundled CommonJS dependencies do', () => {
    expect(code.startsWith("import { createRequire } from 'module'; const require = createRequire(import.meta.url);")).toBe(true);
    expect(/export\s*\{\s*\w+ as handler\s*\}/.test(code)).toBe(true);
  });

  it('carries the locked AWS SDK instead of importing the runtime’s', () => {
    const { version } = JSON.parse(readFileSync(path.join(repositoryRoot, 'node_modules/@aws-sdk/client-sqs/package.json'), 'utf8'));
    // Asserted as booleans: a failure message holding a whole bundle helps no one.
    expect(/\bfrom\s*["']@aws-sdk\/|\bimport\s*\(\s*["']@aws-sdk\//.test(code)).toBe(false);
    expect(code.includes(`name:"@aws-sdk/client-sqs",version:"${version}"`)).toBe(true);
  });

  it('takes its credentials from the environment, as Lambda gives them, without the rest of the SDK’s chain', () => {
    // The chain's other links and the STS and SSO clients they carry (shared/lambda-credentials.ts).
    expect(code.includes('AWS_ACCESS_KEY_ID')).toBe(true);
    for (const gone of ['@aws-sdk/nested-clients', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'sso_start_url']) {
      expect(code.includes(gone), gone).toBe(false);
    }
  });

  it('leaves out semver, which only the X-Ray SDK’s patcher of the AWS SDK v2 needs (shared/lambda-semver.ts)', () => {
    expect(code.includes('semver is not bundled')).toBe(true);
    expect(code.includes('SEMVER_SPEC_VERSION')).toBe(false);
  });

  it('is minified, with a source map that leaves the sources out', () => {
    expect(/\bclient\s*=\s*new\b/.test(code)).toBe(false);
    const map = JSON.parse(readFileSync(path.join(bundle, 'index.mjs.map'), 'utf8'));
    expect(map.sources.length).toBeGreaterThan(0);
    expect(map.sourcesContent).toBeUndefined();
    expect(existsSync(path.join(bundle, 'package.json'))).toBe(false);
  });
});
