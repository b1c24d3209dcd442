/**
 * Runs in every test worker before the tests: points the AWS SDK at the suite's local stack
 * (sdk-environment.ts), so a test can use a plain `new DynamoDBClient({})`.
 */
import { inject } from 'vitest';
import { pointSdkAt } from './sdk-environment.ts';

pointSdkAt(inject('localStack'));
