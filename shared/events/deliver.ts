/**
 * Delivering webhook events (DECISIONS §5), one queue message = one attempt:
 *
 *   DELIVERING --2xx--> DELIVERED
 *       |  non-2xx, timeout (10 s), network error, refused target
 *       v
 *   FAILING --(next attempt after WEBHOOK_RETRY_DELAYS[n] ±10%)--> ... --> DELIVERED
 *       |  last attempt failed, or 410 Gone (which also disables the endpoint)
 *       v
 *   FAILED
 *
 * The worker is an idempotent consumer (SPEC "Events", rule 3): each (event, attempt) key is
 * recorded atomically before the POST (Powertools idempotency, in this table under its own
 * partition), a key already recorded is skipped (an SQS duplicate never POSTs twice), the
 * record is released when processing throws (so the redelivered message can run), and kept
 * for four days, longer than SQS keeps a message.
 *
 * Delays longer than SQS's 15 minutes travel as hops: a message carrying `notBefore` that is
 * sent on, 15 minutes at a time, until the attempt is due.
 */
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';
import { config } from '../config.ts';
import { webhookEndpointDocument } from '../domain/webhook-endpoints/document.ts';
import type { WebhookEndpointRecord } from '../domain/webhook-endpoints/endpoint.ts';
import { recordSubscription } from '../domain/webhook-endpoints/subscriptions.ts';
import { webhookEventDocument } from '../domain/webhook-events/document.ts';
import { FINAL_STATUSES, type WebhookEventRecord, type WebhookEventStatus } from '../domain/webhook-events/event.ts';
import { now } from '../domain/rules.ts';
import { logger } from '../logger.ts';
import { enqueue, MAX_DELAY_SECONDS } from '../queue.ts';
import { getTable } from '../store/client.ts';
import { IDEMPOTENCY_PARTITION, recordKey } from '../store/keys.ts';
import { getItem, toRecord } from '../store/records.ts';
import { Transaction } from '../store/transaction.ts';
import { emitEvent } from './emit.ts';
import { scheduleAttempt, type DeliveryMessage } from './messages.ts';
import { signedHeaders } from './sign.ts';
import { checkTarget } from './targets.ts';

export const TIMEOUT_MS = 10_000;
export const RESPONSE_BODY_MAX = 2048;
/** Idempotency records outlive any copy of the message (SQS keeps one four days by default). */
export const IDEMPOTENCY_SECONDS = 4 * 86400;

export interface AttemptKey {
  accountId: string;
  webhookEventId: string;
  attempt: number;
}

export type AttemptOutcome = { status: WebhookEventStatus | 'GONE'; skipped?: true };

/** What one POST came to: a status code (null when no answer came) and the start of the body. */
export interface Answer {
  code: number | null;
  body: string;
}

/** The delay before attempt `next` (2 = the first retry), with ±10% jitter; undefined when none is left. */
export function retryDelaySeconds(next: number, delays = config.webhookRetryDelays, random = Math.random): number | undefined {
  const base = delays[next - 2];
  if (base === undefined) return undefined;
  return base * (0.9 + 0.2 * random());
}

/** Runs one message: a hop that is not due yet goes back on the queue, an attempt runs once. */
export async function processDelivery(message: DeliveryMessage, context?: Context): Promise<AttemptOutcome | 'HOP'> {
  if (message.notBefore !== undefined) {
    const remaining = message.notBefore - Date.now();
    if (remaining > 1000) {
      await enqueue('webhooks', message, Math.min(Math.ceil(remaining / 1000), MAX_DELAY_SECONDS));
      return 'HOP';
    }
  }
  const key: AttemptKey = { accountId: message.accountId, webhookEventId: message.webhookEventId, attempt: message.attempt };
  return attemptOnce(context)(key);
}

let persistenceStore: DynamoDBPersistenceLayer | undefined;
const idempotencyConfig = new IdempotencyConfig({ expiresAfterSeconds: IDEMPOTENCY_SECONDS });
let idempotent: ((key: AttemptKey) => Promise<AttemptOutcome>) | undefined;

/** The attempt wrapped in Powertools idempotency, keyed by the whole AttemptKey. */
function attemptOnce(context?: Context) {
  if (context) idempotencyConfig.registerLambdaContext(context);
  idempotent ??= makeIdempotent(attempt, { persistenceStore: idempotencyStore(), config: idempotencyConfig, keyPrefix: 'webhook-delivery' });
  return idempotent;
}

/**
 * Powertools' DynamoDB persistence layer on the service table: its composite key is the
 * static partition IDEMPOTENCY_PARTITION and the hashed idempotency key as SK, and its expiry
 * is the table's TTL attribute, so DynamoDB removes spent records by itself.
 */
export function idempotencyStore(): DynamoDBPersistenceLayer {
  persistenceStore ??= new DynamoDBPersistenceLayer({
    tableName: getTable(),
    keyAttr: 'PK',
    sortKeyAttr: 'SK',
    staticPkValue: IDEMPOTENCY_PARTITION,
    expiryAttr: 'expiresAt',
  });
  return persistenceStore;
}

/** Raised inside the attempt's transaction when the event was deleted during the POST. */
class EventGone extends Error {}
class EndpointGone extends Error {}

/** One attempt: POST (unless the event or its endpoint says otherwise), record the answer, schedule what follows. */
export async function attempt(key: AttemptKey): Promise<AttemptOutcome> {
  const log = { ...key };
  const item = await getItem(recordKey(key.accountId, 'webhook-events', key.webhookEventId));
  if (!item) return { status: 'GONE', skipped: true };
  const event = toRecord<WebhookEventRecord>(item);
  if (FINAL_STATUSES.includes(event.status)) return { status: event.status, skipped: true };

  const endpointItem = await getItem(recordKey(key.accountId, 'webhook-endpoints', event.endpointId));
  const endpoint = endpointItem && toRecord<WebhookEndpointRecord>(endpointItem);
  let answer: Answer;
  let stop = false;
  if (!endpoint) {
    answer = { code: null, body: 'The webhook endpoint no longer exists' };
    stop = true;
  } else if (!endpoint.enabled) {
    answer = { code: null, body: 'The webhook endpoint is disabled' };
    stop = true;
  } else {
    answer = await post(event, endpoint);
  }

  const delivered = answer.code !== null && answer.code >= 200 && answer.code < 300;
  const gone = answer.code === 410;
  const delay = delivered || gone || stop ? undefined : retryDelaySeconds(key.attempt + 1);
  const status: WebhookEventStatus = delivered ? 'DELIVERED' : delay === undefined ? 'FAILED' : 'FAILING';

  const record = async (disable: boolean) => {
    const tx = new Transaction();
    tx.update(item, { status, lastResponseCode: answer.code, lastResponseBody: answer.body, updated: now() }, { missing: new EventGone() });
    if (disable && endpointItem) {
      const disabled = toRecord<WebhookEndpointRecord>(tx.update(endpointItem, { enabled: false, updated: now() }, { missing: new EndpointGone() }));
      recordSubscription(tx, disabled);
      await emitEvent(tx, disabled, 'webhook-endpoint.updated', webhookEndpointDocument(disabled));
    }
    await tx.commit();
  };
  try {
    await record(gone && endpoint?.enabled === true).catch((error) => {
      // An endpoint removed during the POST needs no disabling.
      if (error instanceof EndpointGone) return record(false);
      throw error;
    });
  } catch (error) {
    if (!(error instanceof EventGone)) throw error;
    logger.info('webhook event removed during delivery', log);
    return { status: 'GONE' };
  }
  logger.info('webhook attempt', { ...log, status, code: answer.code, nextInSeconds: delay });
  // Not an after-commit action: if the next attempt cannot be queued, the message fails and
  // comes back (the idempotency record is released), rather than leaving the event FAILING forever.
  if (delay !== undefined) await scheduleAttempt({ ...key, attempt: key.attempt + 1 }, delay);
  return { status };
}

/** POSTs the event document, signed, to the event's endpoint URL; never throws. */
export async function post(event: WebhookEventRecord, endpoint: WebhookEndpointRecord): Promise<Answer> {
  let url: URL;
  try {
    url = new URL(event.endpoint);
  } catch {
    return { code: null, body: `The endpoint URL is not valid: ${event.endpoint}` };
  }
  const target = await checkTarget(url, config.allowPrivateWebhookTargets);
  if (!target.allowed) return { code: null, body: target.reason };
  const body = JSON.stringify({ data: webhookEventDocument(event) });
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: signedHeaders(endpoint.signingSecret, event.idempotencyToken, body),
      body,
      // A redirect could lead anywhere, a private address included: it counts as a failed attempt.
      redirect: 'manual',
      signal,
    });
    return { code: response.status, body: await bodyStart(response) };
  } catch (error) {
    return { code: null, body: describeFailure(error, signal) };
  }
}

/** The first RESPONSE_BODY_MAX characters of a response, reading no more than needed. */
async function bodyStart(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_BODY_MAX * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A body cut short (or timed out) still tells what it got so far.
  } finally {
    reader.cancel().catch(() => {});
  }
  return [...Buffer.concat(chunks).toString('utf8')].slice(0, RESPONSE_BODY_MAX).join('');
}

function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return `No answer within ${TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? (error as Error).message;
  return `The request failed: ${detail}`;
}
