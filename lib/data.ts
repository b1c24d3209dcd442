import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { tableDefinition } from '../shared/store/table.ts';

/**
 * The service's one table, shaped by the same definition the local stack uses. It holds every
 * customer's records, so it is protected against deletion twice over: deletion protection
 * stops an API call or a stack update from dropping it, and RETAIN keeps it when the stack goes.
 *
 * Its stream carries every change, old and new images (a removal's record needs the item as it
 * was), to the outbox relay (lib/stream-workers.ts, shared/outbox/entries.ts); the stream keeps
 * records 24 hours.
 *
 * Beside it, the KMS key that seals secrets at rest (shared/auth/seal.ts): the records sealed
 * with it outlive the stack only if it does, so it is retained too; rotated yearly.
 *
 * The table itself is encrypted at rest with DynamoDB's own key, not with a key of ours: who may
 * read it is decided by each route's role, and the values that must stay unreadable even to a
 * reader of the table are sealed with the key above before they are written. A key of ours would
 * add KMS grants to every role that reads or writes the table, and tie the table's availability,
 * and its backups' and restores', to that key staying enabled (docs/operations.md,
 * Well-architected checks).
 */
export class Data extends Construct {
  readonly table: TableV2;
  readonly sealingKey: Key;
  readonly signingKeysKey: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      dynamoStream: StreamViewType.NEW_AND_OLD_IMAGES,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      globalSecondaryIndexes: tableDefinition.indexes.map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType[index.projection],
        ...(index.include && { nonKeyAttributes: [...index.include] }),
      })),
    });

    this.sealingKey = new Key(this, 'SealingKey', {
      description: 'Wraps the data keys that seal secrets at rest in the service table',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Apart from the sealing key: every API function unseals signing keys, and none may thereby
    // unseal the secrets the sealing key keeps.
    this.signingKeysKey = new Key(this, 'SigningKeysKey', {
      description: "Wraps the data keys that seal the accounts' signing keys in the service table",
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
