/**
 * The outbox relay on the local stack (shared/outbox/entries.ts, functions/workers/relay-outbox.ts):
 * what a committed transaction asks to be sent is sent from the table's stream, with no request
 * sending anything. Items are written here as the service's transactions write them, straight into
 * the table, so nothing but the stream can carry them on; the relay's handler is also called
 * directly, as Lambda would call it, with records read from the stream.
 */
import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { toLambdaRecord } from '#dev/local/streams.ts';
import { handler as relayHandler } from '#functions/workers/relay-outbox.ts';
import { RESET_REQUEST_TYPE } from '#shared/outbox/entries.ts';
import { addWebhookEvent } from '#shared/resources/webhook-events/entity.ts';
import {
  collectionPartition,
  collectionSortKey,
  environmentMembership,
  indexOver,
  type Key,
  passwordResetRequestKey,
  purgeMarkerKey,
  recordKey,
} from '#shared/store/keys.ts';

import { Transaction } from '#shared/store/transaction.ts';
import { call, newAccount, newEnvironment, newUser } from '../support/client.ts';
import { localStackIdle } from '../support/idle.ts';
import { inbox, waitForMail } from '../support/mail.ts';
import { until } from '../support/patience.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { stack } from '../support/stack.ts';

const tables = new DynamoDBClient({});
const doc = DynamoDBDocumentClient.from(tables);
const TABLE = () => process.env.TABLE_NAME as string;
const streams = new DynamoDBStreamsClient({ endpoint: stack().dynamodb });
const context = { functionName: 'workers.relayOutbox', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
const relay = (records: DynamoDBRecord[]) => relayHandler({ Records: records }, context) as Promise<DynamoDBBatchResponse>;

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  streams.destroy();
});

const read = async (key: Key) => (await doc.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true }))).Item;

/** The stream from now on: whatever is written after this call, read as Lambda is handed it. */
async function streamFromNow() {
  const { Table } = await tables.send(new DescribeTableCommand({ TableName: TABLE() }));
  const streamArn = Table?.LatestStreamArn as string;
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const open = (StreamDescription?.Shards ?? []).filter((shard) => !shard.SequenceNumberRange?.EndingSequenceNumber);
  const iterators = await Promise.all(
    open.map(
      async (shard) =>
        (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'LATEST' })))
          .ShardIterator,
    ),
  );
  return {
    /** The first record written since that `wanted` accepts. */
    recordWhere(wanted: (record: DynamoDBRecord) => boolean): Promise<DynamoDBRecord> {
      return until(
        async () => {
          for (const [i, iterator] of iterators.entries()) {
            if (!iterator) continue;
            const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
            iterators[i] = page.NextShardIterator;
            const found = (page.Records ?? [])
              .map((record: StreamRecord) => toLambdaRecord(record, streamArn, stack().region))
              .find(wanted);
            if (found) return found;
          }
          return undefined;
        },
        () => 'the stream record',
        50,
      );
    },
  };
}

describe('the outbox relay', () => {
  it('delivers an event that a transaction committed, with no request to send it', async () => {
    const account = await newAccount();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await call('POST', `${account.path}/webhook-endpoints`, {
      token: account.adminToken,
      body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url, subscriptions: ['user.updated'] } } },
    });
    expect(endpoint.status).toBe(201);

    // What a change's transaction writes (shared/events/emit.ts), and nothing after its commit.
    const payload = JSON.stringify({ data: { type: 'users', id: randomUUID(), attributes: {} } });
    const tx = new Transaction();
    const event = addWebhookEvent(tx, {
      accountId: account.id,
      environmentId: null,
      endpointId: endpoint.body.data.id,
      endpoint: receiver.url,
      payload,
      event: 'user.updated',
    });
    await tx.commit();

    const [delivery] = await receiver.waitFor((deliveries) => deliveries.length >= 1);
    expect(delivery?.json.data).toMatchObject({ id: event.id, attributes: { event: 'user.updated', payload } });
    await localStackIdle();
    expect(receiver.deliveries).toHaveLength(1);
    expect((await read(recordKey(account.id, 'webhook-events', event.id)))?.status).toBe('DELIVERED');
  });

  it('purges an environment whose removal a transaction committed, with no request to send the purge', async () => {
    const account = await newAccount();
    const { id: environmentId, code } = await newEnvironment(account, 'ISOLATED');
    await newUser(account, {}, { environment: code });
    const members = async () =>
      (
        await doc.send(
          new QueryCommand({
            TableName: TABLE(),
            IndexName: 'ENV',
            KeyConditionExpression: 'ENVPK = :env',
            ExpressionAttributeValues: { ':env': environmentMembership(account.id, environmentId) },
          }),
        )
      ).Items ?? [];
    expect((await members()).length).toBeGreaterThan(0);

    // What the environment's delete commits (shared/resources/environments/service.ts).
    const item = await read(recordKey(account.id, 'environments', environmentId));
    const tx = new Transaction();
    tx.delete(item as Record<string, unknown> & Key, new Error('the environment is gone'));
    tx.put({
      ...purgeMarkerKey(account.id, environmentId),
      accountId: account.id,
      environmentId,
      requested: new Date().toISOString(),
      completed: 0,
    });
    await tx.commit();

    await localStackIdle();
    expect(await members()).toEqual([]);
    // Both passes are done (the test stack's second pass follows a second after the first,
    // within the idle check's reach): the marker is gone.
    expect(await read(purgeMarkerKey(account.id, environmentId))).toBeUndefined();
  });

  it('mails a reset request once from the stream, even when its stream record reaches the relay twice', async () => {
    const account = await newAccount();
    const { email } = await newUser(account);
    const stream = await streamFromNow();
    expect((await call('POST', `${account.path}/passwords`, { body: { meta: { email } } })).status).toBe(202);
    const record = await stream.recordWhere(
      (change) =>
        change.eventName === 'INSERT' &&
        change.dynamodb?.NewImage?.type?.S === RESET_REQUEST_TYPE &&
        change.dynamodb.NewImage.email?.S === email,
    );
    // What the record was written from: the request's own item.
    const resetId = record.dynamodb?.NewImage?.id?.S as string;
    expect(await read(passwordResetRequestKey(account.id, resetId))).toMatchObject({ type: RESET_REQUEST_TYPE, email, deliver: true });
    await waitForMail(email);
    await localStackIdle();
    expect(await inbox(email)).toHaveLength(1);

    // The same record handed on twice more, as a retried batch hands it: two more messages, no more mail.
    expect(await relay([record])).toEqual({ batchItemFailures: [] });
    expect(await relay([record])).toEqual({ batchItemFailures: [] });
    await localStackIdle();
    expect(await inbox(email)).toHaveLength(1);
  });

  it('answers, of a batch, only the record whose message could not be sent', async () => {
    const account = await newAccount();
    const resetRecord = (email: string): DynamoDBRecord => {
      const id = randomUUID();
      return {
        eventID: randomUUID(),
        eventName: 'INSERT',
        eventSource: 'aws:dynamodb',
        dynamodb: {
          Keys: { PK: { S: passwordResetRequestKey(account.id, id).PK }, SK: { S: '#' } },
          NewImage: {
            type: { S: RESET_REQUEST_TYPE },
            id: { S: id },
            accountId: { S: account.id },
            environmentId: { NULL: true },
            email: { S: email },
            deliver: { BOOL: true },
          },
          SequenceNumber: String(Date.now()) + String(Math.floor(Math.random() * 1e8)).padStart(8, '0'),
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
      };
    };
    // Ten messages to a request: the eleventh, larger than a request may be (1 MiB), goes alone and is refused.
    const refused = resetRecord(`${'x'.repeat(1100 * 1024)}@nobody.example`);
    const records = [...Array.from({ length: 10 }, () => resetRecord(`${randomUUID()}@nobody.example`)), refused];
    expect(await relay(records)).toEqual({ batchItemFailures: [{ itemIdentifier: refused.dynamodb?.SequenceNumber }] });
    // The ten sent are worked (no user holds those addresses: nothing to mail).
    await localStackIdle();
  });

  it('60: finds the events that never left (DELIVERING, no attempt claimed, older than a cutoff), and not those delivered', async () => {
    const account = await newAccount();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await call('POST', `${account.path}/webhook-endpoints`, {
      token: account.adminToken,
      body: { data: { type: 'webhook-endpoints', attributes: { url: receiver.url } } },
    });
    const endpointId = endpoint.body.data.id as string;
    const payload = JSON.stringify({ data: { type: 'users', id: randomUUID(), attributes: {} } });
    const tx = new Transaction();
    const delivered = addWebhookEvent(tx, {
      accountId: account.id,
      environmentId: null,
      endpointId,
      endpoint: receiver.url,
      payload,
      event: 'user.updated',
    });
    await tx.commit();
    await receiver.waitFor((deliveries) => deliveries.length >= 1);

    // An event the relay never sent (as if it gave its record up): its item written so that its insert is no outbox record.
    const lost = { id: randomUUID(), created: new Date().toISOString() };
    const events = collectionPartition(account.id, null, 'WEBHOOK_EVENT');
    await doc.send(
      new PutCommand({
        TableName: TABLE(),
        Item: {
          ...recordKey(account.id, 'webhook-events', lost.id),
          GSI1PK: events,
          GSI1SK: collectionSortKey(lost.created, lost.id),
          id: lost.id,
          accountId: account.id,
          environmentId: null,
          endpointId,
          created: lost.created,
          status: 'DELIVERING',
        },
      }),
    );
    await doc.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: recordKey(account.id, 'webhook-events', lost.id),
        UpdateExpression: 'SET #type = :type',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':type': 'webhook-events' },
      }),
    );
    await localStackIdle();

    const cutoff = new Date().toISOString();
    const { Items = [] } = await doc.send(
      new QueryCommand({
        TableName: TABLE(),
        IndexName: indexOver('GSI1'),
        KeyConditionExpression: 'GSI1PK = :events AND GSI1SK < :cutoff',
        FilterExpression: '#status = :delivering AND attribute_not_exists(deliveryAttempt)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':events': events, ':cutoff': cutoff, ':delivering': 'DELIVERING' },
        ScanIndexForward: false,
      }),
    );
    // The index holds the events' keys: the id ends the table key.
    const found = Items.map((item) => String(item.PK).split('#').at(-1));
    expect(found).toEqual([lost.id]);
    expect(found).not.toContain(delivered.id);
    expect(receiver.deliveries.map((delivery) => delivery.json.data.id)).toEqual([delivered.id]);
  });
});
