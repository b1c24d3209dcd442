/**
 * What one BatchGetItem costs the AWS SDK in the process that sends it, by the two ways the SDK
 * offers: the document client (lib-dynamodb), which resolves its middleware stack on every call,
 * and the plain client with `cacheMiddleware`, which resolves it once per command type and is what
 * the store's `getItems` uses (shared/store/client.ts). This process does nothing but send; the
 * server is DynamoDB Local, another process. The two alternate, several rounds, after a warm-up each.
 */
import { BatchGetItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Key } from '../../../shared/store/keys.ts';
import { median, sendConcurrently } from '../support.ts';

const CALLS = 3_000;
const ROUNDS = 3;

export interface BatchReadCost {
  /** Median CPU milliseconds per call of each way, over the rounds. */
  document: number;
  plain: number;
  keys: number;
  rounds: number;
}

/** CPU milliseconds per call of `send` in this process, after a warm-up. */
async function cpuPerCall(send: () => Promise<unknown>): Promise<number> {
  await sendConcurrently(send, CALLS / 10);
  const before = process.cpuUsage();
  await sendConcurrently(send, CALLS);
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000 / CALLS;
}

export async function batchReadCost(endpoint: string, table: string, keys: Key[]): Promise<BatchReadCost> {
  const config = {
    endpoint,
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
  const document = DynamoDBDocumentClient.from(new DynamoDBClient(config));
  const plain = new DynamoDBClient({ ...config, cacheMiddleware: true });
  const viaDocument = () => document.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }));
  const viaPlain = async () => {
    const { Responses } = await plain.send(
      new BatchGetItemCommand({ RequestItems: { [table]: { Keys: keys.map((key) => marshall(key)), ConsistentRead: true } } }),
    );
    return (Responses?.[table] ?? []).map((item) => unmarshall(item));
  };
  const rounds = { document: [] as number[], plain: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    rounds.document.push(await cpuPerCall(viaDocument));
    rounds.plain.push(await cpuPerCall(viaPlain));
  }
  document.destroy();
  plain.destroy();
  return { document: median(rounds.document), plain: median(rounds.plain), keys: keys.length, rounds: ROUNDS };
}
