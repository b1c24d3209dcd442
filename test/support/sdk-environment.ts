/**
 * Points the AWS SDK of this process at a local stack, through the same variables the functions
 * read, so that `new DynamoDBClient({})` and the service's own clients reach it.
 */
import type { LocalStackEndpoints } from '#dev/local/stack.ts';
import { queues } from '#shared/queues.ts';
import type { QueueName } from '#shared/routes.ts';

export function pointSdkAt(local: LocalStackEndpoints): void {
  Object.assign(process.env, {
    AWS_REGION: local.region,
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID || 'local',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY || 'local',
    AWS_ENDPOINT_URL_DYNAMODB: local.dynamodb,
    AWS_ENDPOINT_URL_SQS: local.sqs,
    AWS_ENDPOINT_URL_SES: local.ses,
    TABLE_NAME: local.tableName,
    PUBLIC_URL: local.api,
    SEALING_MASTER_KEY_FILE: local.masterKeyFile,
  });
  for (const name of Object.keys(queues) as QueueName[]) process.env[queues[name].urlVariable] = local.queueUrls[name];
}
