import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { Access } from '../shared/access.ts';
import { SIGNING_KEY_ATTRIBUTE } from '../shared/auth/signing-key.ts';
import { queues as queueDefinitions } from '../shared/queues.ts';
import type { QueueName } from '../shared/routes.ts';
import { accountKey } from '../shared/store/keys.ts';
import { tableDefinition } from '../shared/store/table.ts';

/** What a function can be granted access to. */
export interface ServiceResources {
  table: ITableV2;
  queues: Record<QueueName, IQueue>;
  /** The SES identity mail is sent from. */
  mailFrom: string;
  /** The KMS key whose data keys seal secrets at rest. */
  sealingKey: IKey;
  /** The KMS key whose data keys seal the accounts' signing keys. */
  signingKeysKey: IKey;
}

/**
 * Turns each access a route-table entry declares into the narrowest grant on `grantee` (a
 * function's role). Nothing is granted that was not declared.
 */
export function grantAccess(
  scope: Construct,
  grantee: IGrantable & { role?: IRole },
  access: readonly Access[],
  resources: ServiceResources,
): void {
  for (const grant of access) {
    switch (grant) {
      case 'table:read':
        grantee.grantPrincipal.addToPrincipalPolicy(tableStatement(resources.table, tableReadActions));
        break;
      case 'table:write':
        grantee.grantPrincipal.addToPrincipalPolicy(tableStatement(resources.table, [...tableReadActions, ...tableWriteActions]));
        break;
      case 'mail:send':
        grantee.grantPrincipal.addToPrincipalPolicy(mailSendStatement(scope, resources.mailFrom));
        break;
      // Sealing needs only new data keys, unsealing only their unwrapping.
      case 'key:seal':
        resources.sealingKey.grant(grantee, 'kms:GenerateDataKey');
        break;
      case 'key:unseal':
        resources.sealingKey.grant(grantee, 'kms:Decrypt');
        break;
      case 'account:sign':
        resources.signingKeysKey.grant(grantee, 'kms:Decrypt', 'kms:GenerateDataKey');
        grantee.grantPrincipal.addToPrincipalPolicy(signingKeyProvisionStatement(resources.table));
        break;
      // The events are items of the route's own writes (table:write); the outbox relay sends them.
      case 'events:emit':
        break;
      default:
        resources.queues[queueNameOf(grant)].grantSendMessages(grantee);
    }
  }
}

/** The environment variables a function needs to use what it was granted (queue URLs, the sender, the sealing key). */
export function accessEnvironment(access: readonly Access[], resources: ServiceResources): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const grant of access) {
    if (grant === 'mail:send') environment.MAIL_FROM = resources.mailFrom;
    else if (grant === 'key:seal' || grant === 'key:unseal') environment.SEALING_KMS_KEY = resources.sealingKey.keyArn;
    else if (grant === 'account:sign') environment.SIGNING_KMS_KEY = resources.signingKeysKey.keyArn;
    else if (grant.startsWith('queue:')) {
      const name = queueNameOf(grant as `queue:${QueueName}`);
      environment[queueDefinitions[name].urlVariable] = resources.queues[name].queueUrl;
    }
  }
  return environment;
}

/** Reading items by key, querying and scanning, and the condition checks of a transaction. */
const tableReadActions = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
];
const tableWriteActions = ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];

/**
 * The table and each of its indexes by name. The table's own grant methods would allow
 * `index/*`; naming the indexes of the table definition grants the same today without a
 * wildcard, so an index is reachable only once it is defined there (docs/operations.md, the
 * table). Stream actions are left out: only the stream workers read the stream, granted by their
 * event source on the table's stream alone (lib/stream-workers.ts).
 */
function tableStatement(table: ITableV2, actions: readonly string[]): PolicyStatement {
  return new PolicyStatement({
    actions: [...actions],
    resources: [table.tableArn, ...tableDefinition.indexes.map((index) => `${table.tableArn}/index/${index.name}`)],
  });
}

/**
 * An account made before signing keys existed is given its key on first use, by whichever
 * function answers for it first: an update of that one attribute of an account item, returning
 * nothing — a function that only reads may do no more.
 */
function signingKeyProvisionStatement(table: ITableV2): PolicyStatement {
  return new PolicyStatement({
    actions: ['dynamodb:UpdateItem'],
    resources: [table.tableArn],
    conditions: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [accountKey('*').PK] },
      'ForAllValues:StringEquals': {
        'dynamodb:Attributes': [tableDefinition.partitionKey, tableDefinition.sortKey, SIGNING_KEY_ATTRIBUTE],
      },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
    },
  });
}

function queueNameOf(grant: `queue:${QueueName}`): QueueName {
  return grant.slice('queue:'.length) as QueueName;
}

/**
 * SES authorises a send against the identity that covers the sender: the address itself when it
 * is verified on its own, otherwise its domain. Both ARNs are allowed so either way of
 * verifying works, and nothing else can be sent from.
 */
function mailSendStatement(scope: Construct, mailFrom: string): PolicyStatement {
  const stack = Stack.of(scope);
  const domain = mailFrom.slice(mailFrom.lastIndexOf('@') + 1);
  const identityArn = (identity: string) =>
    stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  return new PolicyStatement({
    actions: ['ses:SendEmail', 'ses:SendRawEmail'],
    resources: [identityArn(mailFrom), identityArn(domain)],
  });
}
