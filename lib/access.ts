import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { queues as queueDefinitions } from '../shared/queues.ts';
import type { Access, QueueName } from '../shared/routes.ts';

/** What a function can be granted access to. */
export interface ServiceResources {
  table: ITableV2;
  queues: Record<QueueName, IQueue>;
  /** The SES identity mail is sent from. */
  mailFrom: string;
}

/**
 * Turns each access a route-table entry declares into the narrowest grant, plus the environment
 * variable the function needs to use it. A function gets nothing it did not declare.
 */
export function grantAccess(fn: LambdaFunction, access: readonly Access[], resources: ServiceResources): void {
  for (const grant of access) {
    switch (grant) {
      case 'table:read':
        resources.table.grantReadData(fn);
        break;
      case 'table:write':
        resources.table.grantReadWriteData(fn);
        break;
      case 'mail:send':
        grantMailSend(fn, resources.mailFrom);
        break;
      default:
        grantQueueSend(fn, queueNameOf(grant), resources.queues);
    }
  }
}

function queueNameOf(grant: `queue:${QueueName}`): QueueName {
  return grant.slice('queue:'.length) as QueueName;
}

function grantQueueSend(fn: LambdaFunction, name: QueueName, queues: Record<QueueName, IQueue>): void {
  queues[name].grantSendMessages(fn);
  fn.addEnvironment(queueDefinitions[name].urlVariable, queues[name].queueUrl);
}

/**
 * SES authorises a send against the identity that covers the sender: the address itself when it
 * is verified on its own, otherwise its domain. Both ARNs are allowed so either way of
 * verifying works, and nothing else can be sent from.
 */
function grantMailSend(fn: LambdaFunction, mailFrom: string): void {
  const stack = Stack.of(fn);
  const domain = mailFrom.slice(mailFrom.lastIndexOf('@') + 1);
  const identityArn = (identity: string) =>
    stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });

  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['ses:SendEmail', 'ses:SendRawEmail'],
      resources: [identityArn(mailFrom), identityArn(domain)],
    }),
  );
  fn.addEnvironment('MAIL_FROM', mailFrom);
}
