/**
 * Creates the table from the same definition the CDK stack uses, and brings an existing
 * (persisted) table up to date: an index added to the definition since the data was created
 * is added, and its stream (old and new images, as lib/data.ts has it: what the outbox relay
 * reads) is turned on, so a restart never needs the data thrown away.
 */
import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  type GlobalSecondaryIndex,
  ResourceNotFoundException,
  type StreamSpecification,
  type TableDescription,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { type IndexDefinition, tableDefinition } from '#shared/store/table.ts';
import { localAwsConfig } from './aws-clients.ts';

export const LOCAL_TABLE_NAME = 'licensing';

const STREAM: StreamSpecification = { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' };

const indexes: readonly IndexDefinition[] = tableDefinition.indexes;

function keyAttributes(): AttributeDefinition[] {
  const names = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);
  for (const index of indexes) names.add(index.partitionKey).add(index.sortKey);
  return [...names].map((AttributeName) => ({ AttributeName, AttributeType: 'S' }));
}

function globalIndex(index: IndexDefinition): GlobalSecondaryIndex {
  return {
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' },
      { AttributeName: index.sortKey, KeyType: 'RANGE' },
    ],
    Projection: { ProjectionType: index.projection, ...(index.include && { NonKeyAttributes: [...index.include] }) },
  };
}

async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

/** How long an index may take to build before the start gives up: far above what a local table needs. */
const INDEX_BUILD_CEILING_MS = 10 * 60_000;

/** Resolves once no index of the table is still being built (DynamoDB reports each index's status). */
async function indexesBuilt(client: DynamoDBClient, tableName: string): Promise<void> {
  const giveUpAt = Date.now() + INDEX_BUILD_CEILING_MS;
  for (;;) {
    const table = await describe(client, tableName).catch((error: Error) => {
      // DynamoDB Local may answer InternalFailure while it builds an index over a table's data: ask again.
      if (error.name === 'InternalFailure') return { GlobalSecondaryIndexes: [{ IndexStatus: 'CREATING' }] } as TableDescription;
      throw error;
    });
    const building = (table?.GlobalSecondaryIndexes ?? []).filter((index) => index.IndexStatus !== 'ACTIVE');
    if (building.length === 0) return;
    if (Date.now() > giveUpAt) {
      throw new Error(`Indexes of ${tableName} still building: ${building.map((index) => index.IndexName).join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function addMissingIndexes(client: DynamoDBClient, tableName: string, table: TableDescription): Promise<void> {
  const present = new Set((table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of indexes.filter((candidate) => !present.has(candidate.name))) {
    // DynamoDB accepts one index creation per UpdateTable call, and refuses the next while one is building.
    await indexesBuilt(client, tableName);
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: keyAttributes(),
        GlobalSecondaryIndexUpdates: [{ Create: globalIndex(index) }],
      }),
    );
  }
  await indexesBuilt(client, tableName);
}

/** A table made before it had its stream gets it. */
async function enableStream(client: DynamoDBClient, tableName: string, table: TableDescription): Promise<void> {
  if (table.StreamSpecification?.StreamEnabled) return;
  await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: STREAM }));
}

async function enableTimeToLive(client: DynamoDBClient, tableName: string): Promise<void> {
  const current = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const description = current.TimeToLiveDescription;
  if (description?.TimeToLiveStatus === 'ENABLED' && description.AttributeName === tableDefinition.ttlAttribute) return;
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
    }),
  );
}

export async function ensureTable(endpoint: string, tableName = LOCAL_TABLE_NAME): Promise<void> {
  const client = new DynamoDBClient(localAwsConfig(endpoint));
  try {
    const existing = await describe(client, tableName);
    if (existing) {
      await addMissingIndexes(client, tableName, existing);
      await enableStream(client, tableName, existing);
    } else {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: keyAttributes(),
          KeySchema: [
            { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
            { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: indexes.map(globalIndex),
          StreamSpecification: STREAM,
        }),
      );
    }
    await enableTimeToLive(client, tableName);
  } finally {
    client.destroy();
  }
}
