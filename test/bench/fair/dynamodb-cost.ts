/**
 * What DynamoDB Local's JVM spends of the CPU per request, by the kinds of request the hot paths
 * make: a GetItem of one item (the bare server's), BatchGetItems of 2 and 8 items (a validation's
 * two reads) and a conditional counter UpdateItem (an address limit's hit). The requests come from
 * this process; the JVM's CPU is read from /proc around each run, several rounds alternating.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { median, sendConcurrently } from '../support.ts';
import { cpuSeconds } from './processes.ts';

const CALLS = 2_000;
const ROUNDS = 3;

export interface DynamoDbCost {
  kind: string;
  /** Median CPU milliseconds of DynamoDB Local's JVM per request. */
  jvmMs: number;
}

export async function dynamoDbCosts(endpoint: string, table: string, jvmPid: number): Promise<DynamoDbCost[]> {
  const db = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint,
      region: process.env.AWS_REGION ?? 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  // Items of about a record's size, in a partition of their own.
  const keys = Array.from({ length: 8 }, (_, i) => ({ PK: 'BENCH#COST', SK: `ITEM#${i}` }));
  for (const key of keys)
    await db.send(new PutCommand({ TableName: table, Item: { ...key, name: 'x'.repeat(400), count: 5, tags: ['a', 'b'] } }));
  let window = 0;
  const kinds: [string, () => Promise<unknown>][] = [
    ['GetItem, 1 item', () => db.send(new GetCommand({ TableName: table, Key: keys[0], ConsistentRead: true }))],
    [
      'BatchGetItem, 2 items',
      () => db.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: keys.slice(0, 2), ConsistentRead: true } } })),
    ],
    ['BatchGetItem, 8 items', () => db.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }))],
    [
      'UpdateItem, a conditional counter (an address limit)',
      () =>
        db.send(
          new UpdateCommand({
            TableName: table,
            Key: { PK: 'BENCH#COST', SK: `LIMIT#${window++ % 100}` },
            UpdateExpression: 'ADD n :one SET expiresAt = :expires',
            ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
            ExpressionAttributeValues: { ':one': 1, ':limit': 1_000_000_000, ':expires': 0 },
            ReturnValues: 'UPDATED_NEW',
          }),
        ),
    ],
  ];
  const rounds = new Map<string, number[]>(kinds.map(([kind]) => [kind, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [kind, send] of kinds) {
      await sendConcurrently(send, CALLS / 10);
      const before = cpuSeconds(jvmPid);
      await sendConcurrently(send, CALLS);
      rounds.get(kind)?.push(((cpuSeconds(jvmPid) - before) * 1000) / CALLS);
    }
  }
  db.destroy();
  return kinds.map(([kind]) => ({ kind, jvmMs: median(rounds.get(kind) ?? []) }));
}
