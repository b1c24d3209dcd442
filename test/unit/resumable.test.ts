/**
 * The protocol of long work from a queue (shared/resumable.ts), which an environment's purge and
 * the cascades of large removals follow: numbered steps claimed with a lease on a marker item,
 * safe when a message arrives twice, continued in a new message, two passes. Against mocked
 * DynamoDB and SQS clients: the marker is modelled, and its conditions evaluated as DynamoDB would.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LEASE_MS, runStep, StepBusy, type Stepped, type StepWork } from '#shared/resumable.ts';

const TABLE = 'unit-resumable-table';
const QUEUE = 'https://sqs.unit.test/000000000000/cascades';
const MARKER = { PK: 'A#account#CASCADE#root', SK: '#' };

const saved = { table: process.env.TABLE_NAME, queue: process.env.CASCADES_QUEUE_URL };
beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
  process.env.CASCADES_QUEUE_URL = QUEUE;
});
afterAll(() => {
  process.env.TABLE_NAME = saved.table;
  process.env.CASCADES_QUEUE_URL = saved.queue;
});

const ddb = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

interface Marker {
  completed: number;
  lease?: string;
  leaseUntil?: number;
}

let marker: Marker | undefined;
let sent: { body: Record<string, unknown>; delay: number | undefined }[];
/** Whether the next send fails (SQS unreachable). */
let sendFails: boolean;

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

beforeEach(() => {
  marker = { completed: 0 };
  sent = [];
  sendFails = false;
  ddb.reset();
  sqs.reset();
  ddb.on(GetCommand).callsFake((input) => {
    expect(input.Key).toEqual(MARKER);
    return { Item: marker && { ...MARKER, ...marker } };
  });
  ddb.on(UpdateCommand).callsFake((input) => {
    expect(input.Key).toEqual(MARKER);
    const values = input.ExpressionAttributeValues;
    if (input.UpdateExpression.startsWith('SET lease')) {
      // The claim: the marker exists, the previous step is complete, and nobody holds a live lease.
      const live = marker?.leaseUntil !== undefined && !(marker.leaseUntil < values[':now']);
      if (!marker || marker.completed !== values[':previous'] || live) throw conditionFailed();
      marker.lease = values[':lease'];
      marker.leaseUntil = values[':until'];
    } else if (input.UpdateExpression.startsWith('SET completed')) {
      if (!marker || marker.lease !== values[':lease']) throw conditionFailed();
      marker = { completed: values[':step'] };
    } else if (input.UpdateExpression.startsWith('REMOVE lease')) {
      if (!marker || marker.lease !== values[':lease']) throw conditionFailed();
      marker = { completed: marker.completed };
    } else {
      throw new Error(`unexpected update ${input.UpdateExpression}`);
    }
    return {};
  });
  ddb.on(DeleteCommand).callsFake((input) => {
    expect(input.Key).toEqual(MARKER);
    marker = undefined;
    return {};
  });
  sqs.on(SendMessageCommand).callsFake((input) => {
    expect(input.QueueUrl).toBe(QUEUE);
    if (sendFails) throw new Error('SQS unreachable (simulated)');
    sent.push({ body: JSON.parse(input.MessageBody!), delay: input.DelaySeconds });
    return { MessageId: String(sent.length) };
  });
});

interface Message extends Stepped {
  rootId: string;
  after?: string;
}

/** A run of the step `message` names whose work does what `work` says, recording each call. */
function stepOf(message: Message, work: (current: Message) => Promise<Message | undefined>) {
  const calls: Message[] = [];
  let finished = 0;
  const run: StepWork<Message> = {
    queue: 'cascades',
    name: 'cascade',
    marker: MARKER,
    message,
    secondPass: (first) => ({ ...first, after: undefined }),
    secondPassDelaySeconds: 10,
    log: { rootId: message.rootId },
    work: async (current) => {
      calls.push(current);
      return work(current);
    },
    finish: async () => {
      finished++;
    },
  };
  return { run, calls, finished: () => finished };
}

const first: Message = { rootId: 'root' };

describe('a step', () => {
  it('claims its step, works from where its message stands, sends the next step and only then completes', async () => {
    const { run, calls } = stepOf(first, async (current) => ({ ...current, after: 'page-2' }));
    expect(await runStep(run)).toBe('continued');
    expect(calls).toEqual([{ rootId: 'root', step: 1, pass: 1 }]);
    expect(sent).toEqual([{ body: { rootId: 'root', step: 2, pass: 1, after: 'page-2' }, delay: 0 }]);
    expect(marker).toEqual({ completed: 1 });
  });

  it('once the first pass is done, sends the second from the start, delayed; once that is done, finishes and removes its marker', async () => {
    marker = { completed: 3 };
    const pass1 = stepOf({ rootId: 'root', step: 4, pass: 1, after: 'page-9' }, async () => undefined);
    expect(await runStep(pass1.run)).toBe('continued');
    expect(sent).toEqual([{ body: { rootId: 'root', step: 5, pass: 2 }, delay: 10 }]);
    expect(pass1.finished()).toBe(0);
    expect(marker).toEqual({ completed: 4 });

    const pass2 = stepOf({ rootId: 'root', step: 5, pass: 2 }, async () => undefined);
    expect(await runStep(pass2.run)).toBe('finished');
    expect(pass2.finished()).toBe(1);
    expect(marker).toBeUndefined();
    expect(sent).toHaveLength(1);
  });

  it('delivered again once complete, or once its work is over, does nothing', async () => {
    marker = { completed: 2 };
    const again = stepOf({ rootId: 'root', step: 2, pass: 1 }, async () => undefined);
    expect(await runStep(again.run)).toBe('skipped');
    marker = undefined;
    const late = stepOf({ rootId: 'root', step: 7, pass: 2 }, async () => undefined);
    expect(await runStep(late.run)).toBe('skipped');
    expect([...again.calls, ...late.calls]).toEqual([]);
    expect(sent).toEqual([]);
  });

  it('delivered twice at once, runs once: the other copy finds the lease held and comes back later', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const one = stepOf(first, async (current) => {
      await held;
      return { ...current, after: 'page-2' };
    });
    const running = runStep(one.run);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const other = stepOf(first, async () => undefined);
    await expect(runStep(other.run)).rejects.toBeInstanceOf(StepBusy);
    release();
    expect(await running).toBe('continued');
    expect(other.calls).toEqual([]);
    expect(sent).toHaveLength(1);
    // Delivered again later, it is done.
    expect(await runStep(stepOf(first, async () => undefined).run)).toBe('skipped');
  });

  it('waits for the step before it: a continuation that overtook its predecessor comes back later', async () => {
    const early = stepOf({ rootId: 'root', step: 3, pass: 1 }, async () => undefined);
    await expect(runStep(early.run)).rejects.toBeInstanceOf(StepBusy);
    expect(early.calls).toEqual([]);
    expect(marker).toEqual({ completed: 0 });
  });

  it('that fails releases its claim and sends nothing, so the message runs again at once when redelivered', async () => {
    const failing = stepOf(first, async () => {
      throw new Error('table unreachable (simulated)');
    });
    await expect(runStep(failing.run)).rejects.toThrow('table unreachable');
    expect(marker).toEqual({ completed: 0 });
    expect(sent).toEqual([]);
    const retried = stepOf(first, async (current) => ({ ...current, after: 'page-2' }));
    expect(await runStep(retried.run)).toBe('continued');
    expect(marker).toEqual({ completed: 1 });
  });

  it('whose next message cannot be sent is not complete: run again, it does its work again and sends it', async () => {
    sendFails = true;
    const one = stepOf(first, async (current) => ({ ...current, after: 'page-2' }));
    await expect(runStep(one.run)).rejects.toThrow('SQS unreachable');
    expect(marker).toEqual({ completed: 0 });
    sendFails = false;
    const again = stepOf(first, async (current) => ({ ...current, after: 'page-2' }));
    expect(await runStep(again.run)).toBe('continued');
    expect(again.calls).toHaveLength(1);
    expect(sent).toEqual([{ body: { rootId: 'root', step: 2, pass: 1, after: 'page-2' }, delay: 0 }]);
  });

  it('of a worker that crashed is taken again once its lease has lapsed, not before', async () => {
    marker = { completed: 0, lease: 'crashed', leaseUntil: Date.now() + LEASE_MS };
    await expect(runStep(stepOf(first, async () => undefined).run)).rejects.toBeInstanceOf(StepBusy);
    marker = { completed: 0, lease: 'crashed', leaseUntil: Date.now() - 1 };
    const taken = stepOf(first, async (current) => ({ ...current, after: 'page-2' }));
    expect(await runStep(taken.run)).toBe('continued');
    expect(taken.calls).toHaveLength(1);
    expect(marker).toEqual({ completed: 1 });
  });
});
