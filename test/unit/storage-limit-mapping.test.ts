/**
 * The one mapping of a store call's failure to the API's answer (storageLimitOf, applied by
 * toApiError at the pipeline's error boundary), against a mocked document client: each kind of
 * DynamoDB ValidationException a request's values can cause, raised by each kind of store call
 * (a single write, an update, a transaction, a count, a read), answers 422 RECORD_TOO_LARGE for
 * what would be too large and 400 VALUE_NOT_STORABLE for a value the table cannot hold; so do
 * the marshaller's refusals. Faults of DynamoDB or of the service's own requests stay as they are
 * (the pipeline answers them 500). test/store/storage-limits.test.ts raises the real ones.
 */
import {
  DynamoDBServiceException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ruleBroken } from '#shared/errors.ts';
import { ApiError, toApiError } from '#shared/http/errors.ts';
import { hit } from '#shared/store/rate-limit.ts';
import { getItem, type Item } from '#shared/store/records.ts';
import { Transaction } from '#shared/store/transaction.ts';

const documents = mockClient(DynamoDBDocumentClient);
afterAll(() => documents.restore());
beforeEach(() => documents.reset());

const validation = (message: string) =>
  new DynamoDBServiceException({ name: 'ValidationException', $fault: 'client', $metadata: { httpStatusCode: 400 }, message });

/** DynamoDB's words for the limits a request's values can reach, and the answer each gets. */
const TOO_LARGE = [
  'Item size has exceeded the maximum allowed size',
  'Item size to update has exceeded the maximum allowed size',
  'Transaction request cannot be larger than 4 MB',
  'Transaction payload size cannot exceed 4MB. Payload Size: 4393488',
  "1 validation error detected: Value '[...]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100",
  'Invalid UpdateExpression: Expression size has exceeded the maximum allowed size; expression size: 4200',
  'ExpressionAttributeValues exceeds max size',
];
const NOT_STORABLE = [
  'Number overflow. Attempting to store a number with magnitude larger than supported range',
  'Number underflow. Attempting to store a number with magnitude smaller than supported range',
  'Attempting to store more than 38 significant digits in a Number',
  'One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes',
  'One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes',
  'Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes',
  'One or more parameter values were invalid: Size limit exceeded for Index Key GSI1PK Actual Size: 2175 bytes Max Size: 2048 bytes IndexName: GSI1_SLIM',
  'One or more parameter values were invalid: Size limit exceeded',
  'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit',
  'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: PK',
  'One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: GSI1_SLIM, IndexKey: GSI1PK',
];
/** What @aws-sdk/util-dynamodb throws before anything is sent. */
const MARSHALLER = [
  new Error('Number 1e+300 is greater than Number.MAX_SAFE_INTEGER. Use NumberValue from @aws-sdk/lib-dynamodb.'),
  new Error('Number -1e+300 is lesser than Number.MIN_SAFE_INTEGER. Use NumberValue from @aws-sdk/lib-dynamodb.'),
  new Error('Special numeric value Infinity is not allowed'),
  new Error(
    'Unsupported type passed: [object Object]. Pass options.convertClassInstanceToMap=true to marshall typeof object as map attribute.',
  ),
  new TypeError('Cannot convert object to primitive value'),
];

const key = { PK: 'TEST#1', SK: '#' };
const item: Item = { ...key, accountId: 'a', environmentId: null };

/** Each kind of store call a request makes: a PutItem, an UpdateItem, a TransactWriteItems, a count's UpdateItem, a GetItem. */
const CALLS = [
  {
    name: 'a single write',
    run: () => {
      const tx = new Transaction();
      tx.put({ ...key, n: 1 });
      return tx.commit();
    },
  },
  {
    name: 'an update',
    run: () => {
      const tx = new Transaction();
      tx.update(item, { name: 'x' }, { missing: new Error('missing') });
      return tx.commit();
    },
  },
  {
    name: 'a transaction',
    run: () => {
      const tx = new Transaction();
      tx.put({ ...key, n: 1 });
      tx.put({ PK: 'TEST#2', SK: '#' });
      return tx.commit();
    },
  },
  { name: 'a count', run: () => hit('subject', 10, 60) },
  { name: 'a read', run: () => getItem(key) },
] as const;

/** What the API answers when `call` fails with `error`: its status and code, or the error itself, unmapped (a 500). */
async function answerTo(call: (typeof CALLS)[number], error: Error) {
  documents.onAnyCommand().rejects(error);
  const failure = await call.run().then(
    () => {
      throw new Error(`${call.name} succeeded`);
    },
    (thrown: unknown) => thrown,
  );
  const mapped = toApiError(failure);
  return mapped instanceof ApiError ? { status: mapped.status, code: mapped.errors[0]?.code, detail: mapped.errors[0]?.detail } : mapped;
}

describe.each(CALLS)('$name', (call) => {
  it.each(TOO_LARGE)('"%s" answers 422 RECORD_TOO_LARGE', async (message) => {
    expect(await answerTo(call, validation(message))).toEqual({
      status: 422,
      code: 'RECORD_TOO_LARGE',
      detail: expect.stringMatching(/too large to be stored/),
    });
  });

  it.each(NOT_STORABLE)('"%s" answers 400 VALUE_NOT_STORABLE', async (message) => {
    expect(await answerTo(call, validation(message))).toEqual({
      status: 400,
      code: 'VALUE_NOT_STORABLE',
      detail: expect.stringMatching(/cannot be stored|deeper than can be stored|outside the range/),
    });
  });

  it.each(MARSHALLER)('the marshaller\'s "$message" answers 400 VALUE_NOT_STORABLE', async (error) => {
    expect(await answerTo(call, error)).toMatchObject({ status: 400, code: 'VALUE_NOT_STORABLE' });
  });

  it.each([
    new InternalServerError({ $metadata: {}, message: 'Internal server error' }),
    new ProvisionedThroughputExceededException({
      $metadata: {},
      message: 'The level of configured provisioned throughput for the table was exceeded',
    }),
    new RequestLimitExceeded({ $metadata: {}, message: 'Throughput exceeds the current throughput limit for your account' }),
    new DynamoDBServiceException({
      name: 'ThrottlingException',
      $fault: 'client',
      $metadata: {},
      message: 'Rate of requests exceeds the allowed throughput',
    }),
    validation('Invalid UpdateExpression: The expression can not be empty;'),
    validation('Transaction request cannot include multiple operations on one item'),
    validation('One or more parameter values were invalid: Missing the key SK in the item'),
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' }),
    new TypeError('Cannot read properties of undefined'),
  ])('$name "$message" stays unmapped: a 500', async (error) => {
    // The SDK retries throttling itself; what reaches the service after its retries is the fault.
    expect(await answerTo(call, error)).toBe(error);
  });
});

describe('a cancelled transaction', () => {
  const cancelled = (...reasons: { Code: string; Message?: string }[]) =>
    new TransactionCanceledException({
      $metadata: {},
      message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
      CancellationReasons: reasons,
    });
  const transaction = CALLS[2];

  it('for an operation refused for its values answers as that refusal', async () => {
    const tooLarge = cancelled({ Code: 'None' }, { Code: 'ValidationError', Message: 'Item size has exceeded the maximum allowed size' });
    expect(await answerTo(transaction, tooLarge)).toMatchObject({ status: 422, code: 'RECORD_TOO_LARGE' });
    const keyTooLong = cancelled(
      {
        Code: 'ValidationError',
        Message: 'Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes',
      },
      { Code: 'None' },
    );
    expect(await answerTo(transaction, keyTooLong)).toMatchObject({ status: 400, code: 'VALUE_NOT_STORABLE' });
  });

  it("for a failed condition answers with the condition's own fault", async () => {
    documents.on(TransactWriteCommand).rejects(cancelled({ Code: 'ConditionalCheckFailed' }, { Code: 'None' }));
    const tx = new Transaction();
    tx.put({ ...key, n: 1 }, { ifAbsent: ruleBroken('CODE_TAKEN', 'code is taken', '/data/attributes/code') });
    tx.put({ PK: 'TEST#2', SK: '#' });
    const mapped = toApiError(await tx.commit().catch((error: unknown) => error));
    expect(mapped).toBeInstanceOf(ApiError);
    expect((mapped as ApiError).status).toBe(422);
    expect((mapped as ApiError).errors[0]?.code).toBe('CODE_TAKEN');
  });

  it('for a reason that is no limit stays unmapped: a 500', async () => {
    const odd = cancelled({ Code: 'ValidationError', Message: 'Transaction request cannot include multiple operations on one item' });
    expect(await answerTo(transaction, odd)).toBe(odd);
  });
});
