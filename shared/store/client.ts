import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { serviceClient } from '../client-hooks.ts';
import { config } from '../config.ts';
import { traced } from '../tracer.ts';

/**
 * One document client per process, created on first use so that the endpoint variables
 * (AWS_ENDPOINT_URL_DYNAMODB locally) are read after the process has set them.
 */
let client: DynamoDBDocumentClient | undefined;

export function db(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(serviceClient(traced(new DynamoDBClient({})), 'dynamodb'), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return client;
}

/**
 * The plain client, for the batch read every request makes (the pipeline's read-ahead, a
 * validation's reads: `getItems`). It resolves its middleware stack once per command type
 * (`cacheMiddleware`) instead of on every call, which is about a fifth of the SDK's CPU per
 * request. The document client cannot do that (its commands bind the resolved stack to their
 * first instance), so `getItems` marshals its keys and items itself.
 */
let plain: DynamoDBClient | undefined;

export function plainDb(): DynamoDBClient {
  // What a hook adds (fault injection, locally: shared/client-hooks.ts) joins its middleware now, before the first request resolves and keeps the stack.
  plain ??= serviceClient(traced(new DynamoDBClient({ cacheMiddleware: true })), 'dynamodb');
  return plain;
}

export const getTable = () => config.tableName;
