/**
 * The outbox (shared/outbox/entries.ts) and its relay (shared/outbox/relay.ts): which stream
 * records send what, that the event source's filters let exactly those through, and that a batch
 * answers exactly the records it could not relay. SQS is mocked here; test/http/outbox.test.ts
 * relays through the local stack.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { matchesPattern } from '#dev/local/streams.ts';
import { parseDeliveryMessage } from '#shared/events/messages.ts';
import { cascadeMarker } from '#shared/licensing/removal.ts';
import { entryOf, MalformedImage, outbox, outboxAccess, outboxFilters, RESET_REQUEST_TYPE } from '#shared/outbox/entries.ts';
import { relay } from '#shared/outbox/relay.ts';
import { queues } from '#shared/queues.ts';
import { streamWorkers } from '#shared/routes.ts';

const ACCOUNT = '9f3c1c52-6a0e-4c57-9d1e-3c7f0e0b7a11';

const s = (value: string): AttributeValue => ({ S: value });
let sequence = 100;

/** A stream record as Lambda hands it: `image` is the new image of an insert or a modify, the old one of a removal. */
function record(eventName: 'INSERT' | 'MODIFY' | 'REMOVE', image: Record<string, AttributeValue>): DynamoDBRecord {
  sequence += 1;
  return {
    eventID: `e${sequence}`,
    eventName,
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    dynamodb: {
      Keys: { PK: image.PK ?? s('A#x'), SK: s('#') },
      ...(eventName === 'REMOVE' ? { OldImage: image } : { NewImage: image }),
      ...(eventName === 'MODIFY' ? { OldImage: image } : {}),
      SequenceNumber: String(sequence).padStart(21, '0'),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

const webhookEvent = (id: string, extra: Record<string, AttributeValue> = {}) => ({
  PK: s(`A#${ACCOUNT}#WEBHOOK_EVENT#${id}`),
  type: s('webhook-events'),
  id: s(id),
  accountId: s(ACCOUNT),
  environmentId: { NULL: true },
  endpointId: s('endpoint-1'),
  status: s('DELIVERING'),
  ...extra,
});
const environment = (id: string) => ({
  PK: s(`A#${ACCOUNT}#ENVIRONMENT#${id}`),
  type: s('environments'),
  id: s(id),
  accountId: s(ACCOUNT),
});
const resetRequest = (id: string, extra: Record<string, AttributeValue> = {}) => ({
  PK: s(`A#${ACCOUNT}#PASSWORD_RESET_REQUEST#${id}`),
  type: s(RESET_REQUEST_TYPE),
  id: s(id),
  accountId: s(ACCOUNT),
  environmentId: { NULL: true },
  email: s('someone@example.com'),
  deliver: { BOOL: true },
  ...extra,
});

describe('the outbox entries', () => {
  it('send each new webhook event’s first delivery attempt, a message the delivery worker reads', () => {
    const found = entryOf(record('INSERT', webhookEvent('ev-1')));
    expect(found?.entry.queue).toBe('webhooks');
    const message = found?.entry.message(found.image);
    expect(message).toEqual({ accountId: ACCOUNT, webhookEventId: 'ev-1', endpointId: 'endpoint-1', attempt: 1 });
    expect(parseDeliveryMessage(JSON.stringify(message))).toEqual(message);
  });

  it('send the purge of a removed environment', () => {
    const found = entryOf(record('REMOVE', environment('env-1')));
    expect(found?.entry.queue).toBe('purge');
    expect(found?.entry.message(found.image)).toEqual({ accountId: ACCOUNT, environmentId: 'env-1' });
  });

  it('send a password-reset request to the mail queue, with its environment and whether to mail', () => {
    const global = entryOf(record('INSERT', resetRequest('r-1')));
    expect(global?.entry.queue).toBe('mail');
    expect(global?.entry.message(global.image)).toEqual({
      resetId: 'r-1',
      accountId: ACCOUNT,
      environmentId: null,
      email: 'someone@example.com',
      deliver: true,
    });
    const inside = entryOf(record('INSERT', resetRequest('r-2', { environmentId: s('env-2'), deliver: { BOOL: false } })));
    expect(inside?.entry.message(inside.image)).toMatchObject({ environmentId: 'env-2', deliver: false });
  });

  it('send a cascade’s first step from the marker its removal writes, as the cascades worker reads it', () => {
    for (const step of [
      {
        kind: 'removal' as const,
        accountId: ACCOUNT,
        root: { type: 'products' as const, id: 'p-1', environmentId: null },
        environments: [null, 'env-1'],
      },
      {
        kind: 'owner' as const,
        accountId: ACCOUNT,
        root: { type: 'users' as const, id: 'u-1', environmentId: 'env-2' },
        environments: ['env-2'],
      },
    ]) {
      const image = marshall(cascadeMarker(step), { removeUndefinedValues: true }) as Record<string, AttributeValue>;
      const found = entryOf(record('INSERT', image));
      expect(found?.entry.queue).toBe('cascades');
      expect(found?.entry.message(found.image)).toEqual(step);
    }
    // The worker's own updates of its marker (its steps' claims) send nothing.
    expect(
      entryOf(
        record(
          'MODIFY',
          marshall(
            cascadeMarker({
              kind: 'removal',
              accountId: ACCOUNT,
              root: { type: 'licenses', id: 'l-1', environmentId: null },
              environments: [null],
            }),
          ) as Record<string, AttributeValue>,
        ),
      ),
    ).toBeUndefined();
  });

  it('send nothing for any other change: an event’s updates and removal, an environment’s creation, other records', () => {
    for (const change of [
      record('MODIFY', webhookEvent('ev-2', { status: s('DELIVERED') })),
      record('REMOVE', webhookEvent('ev-3')),
      record('INSERT', environment('env-3')),
      record('MODIFY', environment('env-4')),
      record('REMOVE', resetRequest('r-3')),
      record('INSERT', { PK: s(`A#${ACCOUNT}#USER#u-1`), type: s('users'), id: s('u-1') }),
      record('INSERT', { PK: s('RATE#x'), SK: s('W#1'), n: { N: '1' } }),
    ]) {
      expect(entryOf(change), JSON.stringify(change)).toBeUndefined();
    }
  });

  it('refuse an image that lacks what the message needs', () => {
    const broken = entryOf(record('INSERT', webhookEvent('ev-4', { endpointId: { NULL: true } })));
    expect(() => broken?.entry.message(broken.image)).toThrow(MalformedImage);
    const noFlag = entryOf(record('INSERT', resetRequest('r-4', { deliver: s('yes') })));
    expect(() => noFlag?.entry.message(noFlag.image)).toThrow(MalformedImage);
  });

  it('give the event source filters that let through exactly the records of an entry', () => {
    const filters = outboxFilters();
    const changes = [
      record('INSERT', webhookEvent('ev-5')),
      record('REMOVE', environment('env-5')),
      record('INSERT', resetRequest('r-5')),
      record('MODIFY', webhookEvent('ev-6')),
      record('REMOVE', webhookEvent('ev-7')),
      record('INSERT', environment('env-6')),
      record('REMOVE', resetRequest('r-6')),
      record('INSERT', { PK: s('RATE#x'), SK: s('W#1') }),
    ];
    for (const change of changes) {
      expect(
        filters.some((pattern) => matchesPattern(change, pattern)),
        JSON.stringify(change),
      ).toBe(entryOf(change) !== undefined);
    }
    expect(filters.length).toBeLessThanOrEqual(5);
    expect(streamWorkers[0]?.filters).toEqual(filters);
  });

  it('give the relay the queues of the entries, each entry a queue of the service', () => {
    expect(outboxAccess().sort()).toEqual([...new Set(outbox.map((entry) => `queue:${entry.queue}`))].sort());
    for (const entry of outbox) expect(Object.keys(queues)).toContain(entry.queue);
    expect(new Set(outbox.map((entry) => entry.name)).size).toBe(outbox.length);
  });
});

describe('the relay', () => {
  const sqs = mockClient(SQSClient);
  let sent: { queue: string; bodies: unknown[] }[];

  beforeEach(() => {
    sqs.reset();
    sent = [];
    for (const name of Object.keys(queues) as (keyof typeof queues)[]) process.env[queues[name].urlVariable] = `https://sqs.test/${name}`;
  });

  it('sends one message per outbox record, the messages of a queue together, and skips the rest', async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input) => {
      sent.push({ queue: input.QueueUrl, bodies: input.Entries.map((entry: { MessageBody: string }) => JSON.parse(entry.MessageBody)) });
      return {};
    });
    const records = [
      ...Array.from({ length: 12 }, (_, i) => record('INSERT', webhookEvent(`burst-${i}`))),
      record('REMOVE', environment('env-7')),
      record('MODIFY', webhookEvent('burst-0')),
    ];
    expect(await relay(records)).toEqual({ batchItemFailures: [] });
    const webhooks = sent.filter((batch) => batch.queue === 'https://sqs.test/webhooks');
    // Twelve messages: ten to a request.
    expect(webhooks.map((batch) => batch.bodies.length).sort()).toEqual([10, 2]);
    expect(
      webhooks
        .flatMap((batch) => batch.bodies)
        .map((body) => (body as { webhookEventId: string }).webhookEventId)
        .sort(),
    ).toEqual(Array.from({ length: 12 }, (_, i) => `burst-${i}`).sort());
    expect(sent.filter((batch) => batch.queue === 'https://sqs.test/purge').flatMap((batch) => batch.bodies)).toEqual([
      { accountId: ACCOUNT, environmentId: 'env-7' },
    ]);
  });

  it('reports only the records whose messages SQS refused, and those of a request that failed', async () => {
    const refused = record('INSERT', webhookEvent('refused'));
    const purge = record('REMOVE', environment('env-8'));
    sqs
      .on(SendMessageBatchCommand, { QueueUrl: 'https://sqs.test/webhooks' })
      .callsFake((input) => ({
        Failed: input.Entries.flatMap((entry: { Id: string; MessageBody: string }) =>
          JSON.parse(entry.MessageBody).webhookEventId === 'refused' ? [{ Id: entry.Id, Code: 'InternalError', SenderFault: false }] : [],
        ),
      }))
      .on(SendMessageBatchCommand, { QueueUrl: 'https://sqs.test/purge' })
      .rejects(new Error('the purge queue is unreachable'));
    const records = [record('INSERT', webhookEvent('fine-1')), refused, record('INSERT', webhookEvent('fine-2')), purge];
    const { batchItemFailures } = await relay(records);
    expect(batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual([refused, purge].map((r) => r.dynamodb?.SequenceNumber));
  });

  it('reports a record whose image cannot make its message, and relays the others', async () => {
    sqs.on(SendMessageBatchCommand).resolves({});
    const broken = record('INSERT', resetRequest('r-7', { email: { NULL: true } }));
    const { batchItemFailures } = await relay([record('INSERT', resetRequest('r-8')), broken]);
    expect(batchItemFailures).toEqual([{ itemIdentifier: broken.dynamodb?.SequenceNumber }]);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
  });
});
