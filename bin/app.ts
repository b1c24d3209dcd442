import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LicensingStack } from '../lib/licensing-stack.ts';
import { readOperatorSettings } from '../lib/settings.ts';

const app = new App();

// `-c nag=true`: the synthesis fails on any AwsSolutions finding that is neither fixed nor
// acknowledged, and reports each one. The infrastructure tests run the same checks
// (test/infra/nag.test.ts), so a deploy need not wait for them.
const nag = app.node.tryGetContext('nag');
if (nag === true || nag === 'true') Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
else if (nag !== undefined && nag !== false && nag !== 'false') throw new Error(`nag must be true or false, got ${JSON.stringify(nag)}`);

new LicensingStack(app, 'LicensingService', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  settings: readOperatorSettings(app.node),
});
