/**
 * Fault injection (dev/faults.ts) against the run's local services: a fault is the exception
 * the SDK itself makes of AWS's error answer (its class, `$fault`, `$metadata`), the SDK retries it
 * as it retries the real one, a lost answer leaves the write done, and nothing is touched when
 * FAULT_RATE is unset; installed (as the local stack installs it), it reaches the service's own
 * clients. Each case loads the module afresh, as a process starting with its variables.
 */
import { randomUUID } from 'node:crypto';
import {
  DynamoDBClient,
  GetItemCommand,
  InternalServerError,
  ProvisionedThroughputExceededException,
  PutItemCommand,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { CreateQueueCommand, ReceiveMessageCommand, RequestThrottled, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';

const table = () => process.env.TABLE_NAME!;
const key = () => ({ PK: { S: `FAULT_TEST#${randomUUID()}` }, SK: { S: '#' } });
/** A client without faults, to see what really happened. */
const plain = new DynamoDBClient({});
const stored = async (k: ReturnType<typeof key>) =>
  (await plain.send(new GetItemCommand({ TableName: table(), Key: k, ConsistentRead: true }))).Item;

/** The faults module as a process with these variables loads it. */
async function faultsWith(variables: Record<string, string>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(variables)) vi.stubEnv(name, value);
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'SILENT');
  return import('#dev/faults.ts');
}

/** The error a call fails with (the test fails if it succeeds). */
async function failure(call: Promise<unknown>): Promise<any> {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (outcome === undefined) throw new Error('the call succeeded');
  return outcome;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('fault injection', () => {
  it('leaves a client untouched when FAULT_RATE is unset', async () => {
    vi.stubEnv('FAULT_RATE', '');
    const { withFaults } = await faultsWith({});
    const client = new DynamoDBClient({});
    const before = client.middlewareStack.identify();
    expect(withFaults(client, 'dynamodb')).toBe(client);
    expect(client.middlewareStack.identify()).toEqual(before);
  });

  it('throttles DynamoDB with its throttling exceptions, which the SDK retries', async () => {
    const { withFaults, faultsFired } = await faultsWith({ FAULT_RATE: '1', FAULT_KINDS: 'dynamodb-throttle', FAULT_SEED: '1' });
    const once = withFaults(new DynamoDBClient({ maxAttempts: 1 }), 'dynamodb');
    const error = await failure(once.send(new GetItemCommand({ TableName: table(), Key: key() })));
    expect(error instanceof ProvisionedThroughputExceededException || error instanceof ThrottlingException, String(error)).toBe(true);
    expect(error.$fault).toBe('client');
    expect(error.$metadata.httpStatusCode).toBe(400);
    expect(error.$metadata.requestId).toEqual(expect.any(String));

    const twice = withFaults(new DynamoDBClient({ maxAttempts: 2 }), 'dynamodb');
    const retried = await failure(twice.send(new GetItemCommand({ TableName: table(), Key: key() })));
    expect(retried.$metadata.attempts).toBe(2);
    expect(faultsFired()['dynamodb-throttle']).toEqual({ before: 3, after: 0 });
  });

  it('answers a 500 before a write is carried out, or after it with the answer lost', async () => {
    const before = await faultsWith({ FAULT_RATE: '1', FAULT_KINDS: 'dynamodb-500', FAULT_AFTER_SEND: '0' });
    const refused = key();
    const client = before.withFaults(new DynamoDBClient({ maxAttempts: 1 }), 'dynamodb');
    const error = await failure(client.send(new PutItemCommand({ TableName: table(), Item: refused })));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.$fault).toBe('server');
    expect(error.$metadata.httpStatusCode).toBe(500);
    expect(await stored(refused)).toBeUndefined();

    const after = await faultsWith({ FAULT_RATE: '1', FAULT_KINDS: 'dynamodb-500', FAULT_AFTER_SEND: '1' });
    const written = key();
    const lost = after.withFaults(new DynamoDBClient({ maxAttempts: 1 }), 'dynamodb');
    expect(await failure(lost.send(new PutItemCommand({ TableName: table(), Item: written })))).toBeInstanceOf(InternalServerError);
    expect(await stored(written)).toEqual(written);
    // A read's answer is never "lost after": it changed nothing.
    await failure(lost.send(new GetItemCommand({ TableName: table(), Key: written })));
    expect(after.faultsFired()['dynamodb-500']).toEqual({ before: 1, after: 1 });
  });

  it('times requests out with the TimeoutError the SDK retries', async () => {
    const { withFaults } = await faultsWith({ FAULT_RATE: '1', FAULT_KINDS: 'dynamodb-timeout', FAULT_TIMEOUT_MS: '20' });
    const client = withFaults(new DynamoDBClient({ maxAttempts: 2 }), 'dynamodb');
    const error = await failure(client.send(new GetItemCommand({ TableName: table(), Key: key() })));
    expect(error.name).toBe('TimeoutError');
    expect(error.$metadata.attempts).toBe(2);
  });

  it('makes a sticky fault strike every attempt of its call, so the caller sees it', async () => {
    const { withFaults } = await faultsWith({ FAULT_RATE: '0.5', FAULT_KINDS: 'dynamodb-500', FAULT_STICKY: '1', FAULT_SEED: '5' });
    const client = withFaults(new DynamoDBClient({ maxAttempts: 3 }), 'dynamodb');
    const attempts: string[] = [];
    for (let i = 0; i < 10; i++) {
      const outcome = await client.send(new GetItemCommand({ TableName: table(), Key: key() })).then(
        (output) => `ok after ${output.$metadata.attempts}`,
        (error) => `${error.name} after ${error.$metadata.attempts}`,
      );
      attempts.push(outcome);
    }
    // A call's first attempt either gets through, or fails, and then so does every retry.
    expect([...new Set(attempts)].sort()).toEqual(['InternalServerError after 3', 'ok after 1']);
  });

  it('reads the rate on every request, so faults can be turned off while a process runs', async () => {
    const { withFaults } = await faultsWith({ FAULT_RATE: '1', FAULT_KINDS: 'dynamodb-500' });
    const client = withFaults(new DynamoDBClient({ maxAttempts: 1 }), 'dynamodb');
    const k = key();
    await failure(client.send(new PutItemCommand({ TableName: table(), Item: k })));
    vi.stubEnv('FAULT_RATE', '0');
    await client.send(new PutItemCommand({ TableName: table(), Item: k }));
    expect(await stored(k)).toEqual(k);
  });

  it('reaches the store clients: the document client and the plain one with its middleware resolved once', async () => {
    // Installed as the local stack installs it when it starts (shared/client-hooks.ts).
    const { installFaults } = await faultsWith({ FAULT_RATE: '1', FAULT_KINDS: 'dynamodb-500', FAULT_AFTER_SEND: '1' });
    installFaults();
    const { db, plainDb } = await import('#shared/store/client.ts');
    const k = { PK: `FAULT_TEST#${randomUUID()}`, SK: '#' };
    // The SDK's own retries (four attempts) all lose their answers: the caller sees the 500, the item is there.
    const error = await failure(db().send(new PutCommand({ TableName: table(), Item: k })));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.$metadata.attempts).toBe(4);
    expect(await stored({ PK: { S: k.PK }, SK: { S: '#' } })).toBeDefined();
    expect(await failure(db().send(new GetCommand({ TableName: table(), Key: k })))).toBeInstanceOf(InternalServerError);
    expect(await failure(plainDb().send(new GetItemCommand({ TableName: table(), Key: key() })))).toBeInstanceOf(InternalServerError);
  });

  it('reaches a client made before it was installed, and a second install adds nothing', async () => {
    const { installFaults } = await faultsWith({ FAULT_RATE: '1', FAULT_KINDS: 'dynamodb-500' });
    const { serviceClient } = await import('#shared/client-hooks.ts');
    const client = serviceClient(new DynamoDBClient({ maxAttempts: 1 }), 'dynamodb');
    const before = client.middlewareStack.identify();
    installFaults();
    installFaults();
    expect(client.middlewareStack.identify().length).toBe(before.length + 1);
    expect(await failure(client.send(new GetItemCommand({ TableName: table(), Key: key() })))).toBeInstanceOf(InternalServerError);
  });

  it("leaves the service's clients untouched when installed without FAULT_RATE", async () => {
    vi.stubEnv('FAULT_RATE', '');
    const { installFaults } = await faultsWith({});
    installFaults();
    const { serviceClient } = await import('#shared/client-hooks.ts');
    const client = new DynamoDBClient({});
    const before = client.middlewareStack.identify();
    expect(serviceClient(client, 'dynamodb')).toBe(client);
    expect(client.middlewareStack.identify()).toEqual(before);
  });

  it('fails SQS sends with its throttling error or a 500, and may lose the answer of a send that was made', async () => {
    const queue = await new SQSClient({}).send(new CreateQueueCommand({ QueueName: `fault-test-${randomUUID().slice(0, 8)}` }));
    const { withFaults } = await faultsWith({ FAULT_RATE: '1', FAULT_KINDS: 'sqs', FAULT_AFTER_SEND: '1', FAULT_SEED: '7' });
    const client = withFaults(new SQSClient({ maxAttempts: 1 }), 'sqs');
    const errors = [];
    for (let i = 0; i < 12; i++) {
      errors.push(await failure(client.send(new SendMessageCommand({ QueueUrl: queue.QueueUrl, MessageBody: String(i) }))));
    }
    const throttled = errors.filter((error) => error instanceof RequestThrottled);
    const failed = errors.filter((error) => error.name === 'InternalFailure');
    expect(throttled.length).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
    expect(throttled.length + failed.length).toBe(errors.length);
    expect(failed.every((error) => error.$fault === 'server' && error.$metadata.httpStatusCode === 500)).toBe(true);
    // Every 500 struck after its send (FAULT_AFTER_SEND=1): those messages are on the queue; throttled ones are not.
    const received = await new SQSClient({}).send(
      new ReceiveMessageCommand({ QueueUrl: queue.QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    expect(received.Messages?.length).toBe(failed.length);
  });

  it('fails SES mail with its throttling error or a 503', async () => {
    const { withFaults } = await faultsWith({ FAULT_RATE: '1', FAULT_KINDS: 'ses', FAULT_AFTER_SEND: '0', FAULT_SEED: '3' });
    const client = withFaults(new SESClient({ maxAttempts: 1 }), 'ses');
    const send = () =>
      client.send(
        new SendEmailCommand({
          Source: 'no-reply@licensing.local',
          Destination: { ToAddresses: ['someone@faults.example'] },
          Message: { Subject: { Data: 'x' }, Body: { Text: { Data: 'x' } } },
        }),
      );
    const errors = [];
    for (let i = 0; i < 8; i++) errors.push(await failure(send()));
    const names = new Set(errors.map((error) => `${error.name} ${error.$fault} ${error.$metadata.httpStatusCode}`));
    expect([...names].sort()).toEqual(['ServiceUnavailable server 503', 'Throttling client 400']);
  });

  it('chooses the same faults for the same seed', async () => {
    const run = async () => {
      const { withFaults } = await faultsWith({ FAULT_RATE: '0.5', FAULT_KINDS: 'dynamodb-throttle,dynamodb-500', FAULT_SEED: '42' });
      const client = withFaults(new DynamoDBClient({ maxAttempts: 1 }), 'dynamodb');
      const outcomes: string[] = [];
      for (let i = 0; i < 12; i++) {
        outcomes.push(
          await client.send(new GetItemCommand({ TableName: table(), Key: key() })).then(
            () => 'ok',
            (error: Error) => error.name,
          ),
        );
      }
      return outcomes;
    };
    const first = await run();
    expect(new Set(first).size).toBeGreaterThan(1);
    expect(await run()).toEqual(first);
  });

  it('refuses a kind it does not know', async () => {
    const { withFaults } = await faultsWith({ FAULT_RATE: '0.1', FAULT_KINDS: 'dynamodb-500,s3' });
    expect(() => withFaults(new DynamoDBClient({}), 'dynamodb')).toThrow(/unknown kinds: s3/);
  });
});
