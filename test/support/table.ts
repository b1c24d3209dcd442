/**
 * The run's table, read directly (strongly consistent), for tests that look at what the API
 * wrote: an item by key, the members of an environment, the end of a purge.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { environmentMembership, indexOver, type Key, purgeMarkerKey } from '#shared/store/keys.ts';
import { until } from './patience.ts';

export type Item = Record<string, any>;

let client: DynamoDBDocumentClient | undefined;
/** The document client (made on first use: the worker's setup file points the SDK at the stack first). */
export const table = () => (client ??= DynamoDBDocumentClient.from(new DynamoDBClient({})));
export const tableName = () => process.env.TABLE_NAME!;

export async function tableItem(key: Key): Promise<Item | undefined> {
  return (await table().send(new GetCommand({ TableName: tableName(), Key: { PK: key.PK, SK: key.SK }, ConsistentRead: true }))).Item;
}

/** Every item a query finds, page after page. */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table().send(new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey: start }));
    items.push(...((page.Items ?? []) as Item[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * The records of one collection partition (`keys`: its key attributes' prefix, `GSI2`), read as
 * the store reads them: located on the collection index, then read from the table.
 */
export async function collectionRecords(keys: string, partition: string): Promise<Item[]> {
  const entries = await queryAll({
    IndexName: indexOver(keys),
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': `${keys}PK` },
    ExpressionAttributeValues: { ':pk': partition },
  });
  const records = await Promise.all(entries.map((entry) => tableItem({ PK: entry.PK, SK: entry.SK })));
  return records.filter((record): record is Item => record !== undefined);
}

/** Items still carrying an environment's ENVPK (the ENV index, keys only). */
export const membersOf = (accountId: string, environmentId: string) =>
  queryAll({
    IndexName: 'ENV',
    KeyConditionExpression: 'ENVPK = :env',
    ExpressionAttributeValues: { ':env': environmentMembership(accountId, environmentId) },
  });

/** Waits until the purge of a deleted environment has finished, both passes: no member left, and its marker gone. */
export async function purgeFinished(accountId: string, environmentId: string): Promise<void> {
  let left = 0;
  let marker: Item | undefined;
  await until(
    async () => {
      [left, marker] = await Promise.all([
        membersOf(accountId, environmentId).then((members) => members.length),
        tableItem(purgeMarkerKey(accountId, environmentId)),
      ]);
      return left === 0 && !marker;
    },
    () => `the purge of ${environmentId}: ${left} items left, marker ${JSON.stringify(marker)}`,
  );
}
