import { App } from 'aws-cdk-lib';
import { LicensingStack } from '../lib/licensing-stack.ts';
import { readOperatorSettings } from '../lib/settings.ts';

const app = new App();

new LicensingStack(app, 'LicensingService', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  settings: readOperatorSettings(app.node),
});
