/**
 * Delivering webhook events (docs/rules.md §26.4), one queue message = one attempt:
 *
 *   DELIVERING --2xx--> DELIVERED
 *       |  non-2xx, timeout (10 s), network error, refused target
 *       v
 *   FAILING --(next attempt after WEBHOOK_RETRY_DELAYS[n] ±10%)--> ... --> DELIVERED
 *       |  last attempt failed, or 410 Gone (which also disables the endpoint)
 *       v
 *   FAILED
 *
 * The worker is an idempotent consumer (docs/rules.md §26.5): attempt n of an event is
 * claimed on the event's own item before the POST, by one conditional update that sets
 * `deliveryAttempt = n` and a lease (`deliveryLease`, epoch ms: as long as the run may last),
 * succeeds only if the event is not final and no run has claimed attempt n or a later one (or
 * the one that claimed n has outlived its lease), and returns the event. The outcome is written
 * by a second conditional update, which holds only while the claim is still this run's, and
 * ends the lease. So a copy of a message whose attempt was made finds it claimed without a lease
 * and POSTs nothing; a copy arriving while the attempt runs finds the lease and is sent again,
 * due when the lease ends (a hop, below), so that it neither POSTs twice nor fails its receives
 * away into the dead-letter queue while a run that may have died holds the attempt; a run that throws before its outcome is written gives its claim back, so the
 * redelivered message runs; a run that died is taken over once its lease is over. A message that
 * comes back after its attempt failed and was recorded (the next attempt could not be queued)
 * queues the next attempt, POSTing nothing. The claim lives as long as the event.
 *
 * Each claim carries an id of its own (`deliveryClaim`), so that the SDK's retry of a claim or
 * of an outcome whose answer was lost (written, the answer never came) finds its own write and
 * holds, rather than taking it for another run's: the claim would otherwise fail as in progress
 * until its lease ran out, and an outcome as taken over, its next attempt never scheduled.
 *
 * Requests per attempt: the claim (which reads the event) and the outcome write, and the
 * endpoint read: one BatchGetItem for a whole batch's endpoints (the messages name them), read
 * before the claims; an attempt without it reads its endpoint alongside its claim.
 *
 * Delays longer than SQS's 15 minutes travel as hops: a message carrying `notBefore` that is
 * sent on, 15 minutes at a time, until the attempt is due.
 */
import { randomUUID } from 'node:crypto';
import { type AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { signingKeyOfAccount } from '../auth/signing-key.ts';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { enqueue, MAX_DELAY_SECONDS } from '../queue.ts';
import { workerTimeoutSeconds } from '../queues.ts';
import { now } from '../resources/rules.ts';
import { webhookEndpointDocument } from '../resources/webhook-endpoints/document.ts';
import type { WebhookEndpointRecord } from '../resources/webhook-endpoints/entity.ts';
import { recordSubscription } from '../resources/webhook-endpoints/subscriptions.ts';
import { webhookEventDocument } from '../resources/webhook-events/document.ts';
import { FINAL_STATUSES, type WebhookEventRecord, type WebhookEventStatus } from '../resources/webhook-events/entity.ts';
import { db, getTable } from '../store/client.ts';
import type { AccessPattern } from '../store/data-model.ts';
import { recordKey } from '../store/keys.ts';
import { getItem, getItems, type Item, toRecord } from '../store/records.ts';
import { Transaction } from '../store/transaction.ts';
import { emitEvent } from './emit.ts';
import { type DeliveryMessage, scheduleAttempt } from './messages.ts';
import { deliveredPayload } from './sealed-meta.ts';
import { keygenSignatureHeaders, signedHeaders } from './sign.ts';
import { checkTarget } from './targets.ts';
import { postPinned } from './transport.ts';

export const TIMEOUT_MS = 10_000;
export const RESPONSE_BODY_MAX = 2048;
/** The lease of a run without a Lambda context: the worker's timeout. */
const DEFAULT_LEASE_MS = workerTimeoutSeconds.webhooks * 1000;

export interface AttemptKey {
  accountId: string;
  webhookEventId: string;
  attempt: number;
  /** The event's endpoint, when the message names it: then it is read with the batch's, or alongside the claim. */
  endpointId?: string;
}

export type AttemptOutcome = { status: WebhookEventStatus | 'GONE'; skipped?: true };

/** What one POST came to: a status code (null when no answer came) and the start of the body. */
export interface Answer {
  code: number | null;
  body: string;
}

/** Another run holds the attempt: the message fails, and comes back once that run is over. */
export class AttemptInProgress extends Error {
  override name = 'AttemptInProgress';

  constructor(
    message: string,
    /** When the lease of the run that holds the attempt ends (epoch ms). */
    readonly until: number,
  ) {
    super(message);
  }
}

/** The delay before attempt `next` (2 = the first retry), with ±10% jitter; undefined when none is left. */
export function retryDelaySeconds(next: number, delays = config.webhookRetryDelays, random = Math.random): number | undefined {
  const base = delays[next - 2];
  if (base === undefined) return undefined;
  return base * (0.9 + 0.2 * random());
}

/** Endpoint items read ahead for a batch, by endpointRef: the item, or undefined when there is none. */
export type EndpointReads = ReadonlyMap<string, Item | undefined>;

const endpointRef = (accountId: string, endpointId: string) => `${accountId}/${endpointId}`;

/**
 * Reads the endpoints a batch's messages name in one strongly consistent BatchGetItem, so its
 * attempts need not read them one by one. A hop not due yet needs none. When the read fails the
 * map is empty and each attempt reads its own endpoint.
 */
export async function readEndpoints(messages: readonly DeliveryMessage[]): Promise<EndpointReads> {
  const wanted = new Map<string, { accountId: string; endpointId: string }>();
  for (const { accountId, endpointId, notBefore } of messages) {
    if (endpointId && notBefore === undefined) wanted.set(endpointRef(accountId, endpointId), { accountId, endpointId });
  }
  const reads = new Map<string, Item | undefined>();
  if (wanted.size === 0) return reads;
  try {
    const keys = [...wanted.values()].map(({ accountId, endpointId }) => recordKey(accountId, 'webhook-endpoints', endpointId));
    const found = new Map<string, Item>();
    // BatchGetItem takes 100 keys at most.
    for (let i = 0; i < keys.length; i += 100) {
      for (const item of await getItems(keys.slice(i, i + 100))) found.set(item.PK, item);
    }
    for (const [ref, { accountId, endpointId }] of wanted)
      reads.set(ref, found.get(recordKey(accountId, 'webhook-endpoints', endpointId).PK));
    return reads;
  } catch (error) {
    logger.warn('webhook endpoints not read ahead; each attempt reads its own', { error: error as Error });
    return new Map();
  }
}

/** Runs one message: a hop that is not due yet goes back on the queue, an attempt runs once. */
export async function processDelivery(
  message: DeliveryMessage,
  context?: Context,
  endpoints?: EndpointReads,
): Promise<AttemptOutcome | 'HOP'> {
  if (message.notBefore !== undefined) {
    const remaining = message.notBefore - Date.now();
    if (remaining > 1000) {
      await enqueue('webhooks', message, Math.min(Math.ceil(remaining / 1000), MAX_DELAY_SECONDS));
      return 'HOP';
    }
  }
  const { notBefore: _due, ...key } = message;
  try {
    return await attempt(key, context?.getRemainingTimeInMillis() ?? DEFAULT_LEASE_MS, endpoints);
  } catch (error) {
    if (!(error instanceof AttemptInProgress)) throw error;
    // Another run holds the attempt: this copy comes back when that run's lease ends, as a message
    // due then, rather than failing each time it comes back meanwhile, which, past the queue's
    // maxReceiveCount, would leave it in the dead-letter queue with the attempt undone if that run died.
    await enqueue(
      'webhooks',
      { ...message, notBefore: error.until },
      Math.min(Math.ceil((error.until - Date.now()) / 1000), MAX_DELAY_SECONDS),
    );
    return 'HOP';
  }
}

/**
 * The claim of one attempt: the event as claimed, the lease and the claim's id, or what to answer
 * instead of running, with the next attempt to queue again when this one's message came back
 * after its outcome was written (`followUp`).
 */
export type Claim = { item: Item; lease: number; id: string } | { declined: AttemptOutcome; followUp?: AttemptKey };

const eventKey = (key: AttemptKey) => recordKey(key.accountId, 'webhook-events', key.webhookEventId);
const FINAL_VALUES = Object.fromEntries(FINAL_STATUSES.map((status, i) => [`:final${i}`, status]));

/**
 * Claims attempt `key.attempt` for `leaseMs` (see the top of this file). Throws
 * AttemptInProgress while another run holds it.
 */
export async function claimAttempt(key: AttemptKey, leaseMs: number, at = Date.now()): Promise<Claim> {
  const lease = at + leaseMs;
  const id = randomUUID();
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: getTable(),
        Key: eventKey(key),
        UpdateExpression: 'SET deliveryAttempt = :attempt, deliveryLease = :lease, deliveryClaim = :claim',
        ConditionExpression: [
          'attribute_exists(PK)',
          `NOT (#status IN (${Object.keys(FINAL_VALUES).join(', ')}))`,
          // The last: this very claim, made by an earlier try of this request whose answer was lost.
          '(attribute_not_exists(deliveryAttempt) OR deliveryAttempt < :attempt OR (deliveryAttempt = :attempt AND deliveryLease < :now) OR deliveryClaim = :claim)',
        ].join(' AND '),
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':attempt': key.attempt, ':lease': lease, ':now': at, ':claim': id, ...FINAL_VALUES },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { item: Attributes as Item, lease, id };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) {
      // No answer told whether the claim was made (its writes may have been carried out, their
      // answers lost): one this request made is given back, so that the message, come back, runs
      // at once rather than once the lease has ended.
      await releaseAttempt(key, id).catch((releaseError: unknown) => claimHeld(key, releaseError));
      throw error;
    }
    const refusal = declined(key, error.Item);
    const made = refusal.status === 'FAILING' && Number(error.Item?.deliveryAttempt?.N) === key.attempt;
    const endpointId = error.Item?.endpointId?.S ?? key.endpointId;
    return made
      ? { declined: refusal, followUp: { ...key, attempt: key.attempt + 1, ...(endpointId ? { endpointId } : {}) } }
      : { declined: refusal };
  }
}

/** Why a claim was refused, from the item as it was (absent: the event is gone). */
function declined(key: AttemptKey, item: Record<string, AttributeValue> | undefined): AttemptOutcome {
  if (!item) return { status: 'GONE', skipped: true };
  const status = item.status?.S as WebhookEventStatus;
  if (!FINAL_STATUSES.includes(status) && Number(item.deliveryAttempt?.N) === key.attempt && item.deliveryLease?.N !== undefined) {
    throw new AttemptInProgress(
      `Attempt ${key.attempt} of webhook event ${key.webhookEventId} is in progress elsewhere`,
      Number(item.deliveryLease.N),
    );
  }
  // Final, this attempt made already, or a later one begun.
  return { status, skipped: true };
}

/**
 * Gives back the claim `claimId` (its run failed before its outcome was written), so the
 * redelivered message runs the attempt again. A claim no longer this run's, or whose outcome is
 * written, is left.
 */
export async function releaseAttempt(key: AttemptKey, claimId: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: getTable(),
        Key: eventKey(key),
        UpdateExpression: 'SET deliveryAttempt = :previous REMOVE deliveryLease',
        ConditionExpression: 'deliveryAttempt = :attempt AND deliveryClaim = :claim AND attribute_exists(deliveryLease)',
        ExpressionAttributeValues: { ':previous': key.attempt - 1, ':attempt': key.attempt, ':claim': claimId },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** A claim that could not be given back holds the attempt until its lease ends: the message's returns fail until then. */
const claimHeld = (key: AttemptKey, error: unknown) =>
  logger.error('webhook attempt claim not given back; it frees itself when its lease ends', {
    accountId: key.accountId,
    webhookEventId: key.webhookEventId,
    attempt: key.attempt,
    error: error as Error,
  });

type Recorded = 'RECORDED' | 'GONE' | 'TAKEN_OVER';

/** Raised inside the 410 transaction when the event was deleted, or its attempt taken over, during the POST. */
class EventGone extends Error {}
class EndpointGone extends Error {}

/** One attempt: POST (unless the event or its endpoint says otherwise), record the answer, schedule what follows. */
export async function attempt(key: AttemptKey, leaseMs = DEFAULT_LEASE_MS, endpoints?: EndpointReads): Promise<AttemptOutcome> {
  const log = { accountId: key.accountId, webhookEventId: key.webhookEventId, attempt: key.attempt };
  const endpointKey = (id: string) => recordKey(key.accountId, 'webhook-endpoints', id);
  /** The endpoint the message names: read ahead with its batch, or read now. */
  const readEndpoint = (id: string) => {
    const ref = endpointRef(key.accountId, id);
    return endpoints?.has(ref) ? Promise.resolve(endpoints.get(ref)) : getItem(endpointKey(id));
  };
  const endpointRead = key.endpointId ? readEndpoint(key.endpointId) : undefined;
  // Awaited below once the claim holds; a claim that fails first must not leave it unhandled.
  endpointRead?.catch(() => undefined);
  const claim = await claimAttempt(key, leaseMs);
  if ('declined' in claim) {
    // This attempt failed and was recorded, yet its message came back: its run may have failed to
    // queue the next attempt. Queued again: of two messages of one attempt, one claims it and the
    // other is skipped.
    const delay = claim.followUp && retryDelaySeconds(claim.followUp.attempt);
    if (claim.followUp && delay !== undefined) await scheduleAttempt(claim.followUp, delay);
    return claim.declined;
  }

  let recorded: { status: WebhookEventStatus; code: number | null; delay?: number; endpointId: string };
  try {
    const event = toRecord('webhook-events', claim.item);
    const endpointItem =
      endpointRead && event.endpointId === key.endpointId ? await endpointRead : await getItem(endpointKey(event.endpointId));
    const endpoint = endpointItem && toRecord('webhook-endpoints', endpointItem);
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
    const changes = { status, lastResponseCode: answer.code, lastResponseBody: answer.body, updated: now() };

    const result =
      gone && endpointItem && endpoint?.enabled
        ? await recordDisabling(claim.item, claim.lease, key.attempt, changes, endpointItem)
        : await recordOutcome(key, claim, changes);
    if (result === 'GONE') {
      logger.info('webhook event removed during delivery', log);
      return { status: 'GONE' };
    }
    if (result === 'TAKEN_OVER') {
      // This run outlived its lease and another took the attempt over: its outcome stands.
      logger.warn('webhook attempt taken over by another run; its outcome is left to that run', log);
      return { status, skipped: true };
    }
    recorded = { status, code: answer.code, delay, endpointId: event.endpointId };
  } catch (error) {
    await releaseAttempt(key, claim.id).catch((releaseError: unknown) => claimHeld(key, releaseError));
    throw error;
  }
  const { status, code, delay, endpointId } = recorded;
  logger.info('webhook attempt', { ...log, status, code, nextInSeconds: delay });
  // Not an after-commit action: if the next attempt cannot be queued, the message fails and comes
  // back, finds this attempt recorded, and queues the next one then (`followUp`), POSTing nothing
  // again, rather than leaving the event FAILING forever.
  if (delay !== undefined) {
    await scheduleAttempt({ accountId: key.accountId, webhookEventId: key.webhookEventId, endpointId, attempt: key.attempt + 1 }, delay);
  }
  return { status };
}

interface OutcomeChanges {
  status: WebhookEventStatus;
  lastResponseCode: number | null;
  lastResponseBody: string;
  updated: string;
}

/**
 * The outcome, written only while this run holds the claim (or, for a retry whose first try was
 * written and its answer lost, once this claim's outcome has ended the lease); ends the lease.
 */
async function recordOutcome(key: AttemptKey, claim: { lease: number; id: string }, changes: OutcomeChanges): Promise<Recorded> {
  // A null code is removed (it reads back as null), as a Transaction update does.
  const code = changes.lastResponseCode === null ? undefined : changes.lastResponseCode;
  try {
    await db().send(
      new UpdateCommand({
        TableName: getTable(),
        Key: eventKey(key),
        UpdateExpression: [
          `SET #status = :status, lastResponseBody = :body, updated = :updated${code === undefined ? '' : ', lastResponseCode = :code'}`,
          `REMOVE deliveryLease${code === undefined ? ', lastResponseCode' : ''}`,
        ].join(' '),
        ConditionExpression:
          'deliveryAttempt = :attempt AND (deliveryLease = :lease OR (attribute_not_exists(deliveryLease) AND deliveryClaim = :claim))',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': changes.status,
          ':body': changes.lastResponseBody,
          ':updated': changes.updated,
          ...(code === undefined ? {} : { ':code': code }),
          ':attempt': key.attempt,
          ':lease': claim.lease,
          ':claim': claim.id,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'RECORDED';
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return error.Item ? 'TAKEN_OVER' : 'GONE';
  }
}

/**
 * 410 Gone from an enabled endpoint: the outcome and the endpoint's disabling in one
 * transaction, with the endpoint's own webhook-endpoint.updated event.
 */
async function recordDisabling(
  item: Item,
  lease: number,
  attemptNumber: number,
  changes: OutcomeChanges,
  endpointItem: Item,
): Promise<Recorded> {
  const write = async (disable: boolean) => {
    const tx = new Transaction();
    tx.update(
      item,
      { ...changes, deliveryLease: null },
      { missing: new EventGone(), unchanged: { deliveryAttempt: attemptNumber, deliveryLease: lease } },
    );
    if (disable) {
      const disabled = toRecord(
        'webhook-endpoints',
        tx.update(
          endpointItem,
          { enabled: false, updated: now() },
          { missing: new EndpointGone(), unchanged: { updated: endpointItem.updated } },
        ),
      );
      recordSubscription(tx, disabled);
      await emitEvent(tx, disabled, 'webhook-endpoint.updated', webhookEndpointDocument(disabled));
    }
    await tx.commit();
  };
  try {
    await write(true).catch((error) => {
      // An endpoint removed or changed during the POST needs no disabling: the 410 came from what it was.
      if (error instanceof EndpointGone) return write(false);
      throw error;
    });
    return 'RECORDED';
  } catch (error) {
    if (!(error instanceof EventGone)) throw error;
    return 'GONE';
  }
}

/** POSTs the event document with `payload` (as delivered), signed, to the event's endpoint URL; never throws. */
export async function post(event: WebhookEventRecord, endpoint: WebhookEndpointRecord): Promise<Answer> {
  let url: URL;
  try {
    url = new URL(event.endpoint);
  } catch {
    return { code: null, body: `The endpoint URL is not valid: ${event.endpoint}` };
  }
  const target = await checkTarget(url, config.allowPrivateWebhookTargets);
  if (!target.allowed) return { code: null, body: target.reason };
  // Secrets are unsealed only for a target that may have them. Unsealing fails only when the
  // keeper of the keys does, or the sealed value was altered: the message then comes back (the
  // claim given back), and ends in the dead-letter queue.
  const body = JSON.stringify({ data: webhookEventDocument(event, await deliveredPayload(event)) });
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  try {
    // To the checked addresses only: the name is not resolved again (transport.ts). A redirect
    // could lead anywhere, a private address included: it is not followed, a failed attempt.
    const answer = await postPinned(url, target.addresses, {
      headers: {
        ...signedHeaders(endpoint.signingSecret, event.idempotencyToken, body),
        ...(await keygenSigned(event.accountId, url, body)),
      },
      body,
      signal,
      // Enough bytes for RESPONSE_BODY_MAX characters (at most 4 bytes each in UTF-8).
      maxBodyBytes: RESPONSE_BODY_MAX * 4,
    });
    return { code: answer.status, body: [...answer.body.toString('utf8')].slice(0, RESPONSE_BODY_MAX).join('') };
  } catch (error) {
    return { code: null, body: describeFailure(error, signal) };
  }
}

/**
 * Keygen's signature headers of the POST, with the account's key; none (the failure logged) when
 * the key cannot be had: like an answer's signature, it never fails a delivery, which still
 * carries its Standard Webhooks signature.
 */
async function keygenSigned(accountId: string, url: URL, body: string): Promise<Record<string, string>> {
  try {
    return keygenSignatureHeaders(accountId, await signingKeyOfAccount(accountId), url, body);
  } catch (error) {
    logger.error("the delivery could not be signed with the account's key", { accountId, error: error as Error });
    return {};
  }
}

function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return `No answer within ${TIMEOUT_MS / 1000} s`;
  const { code, message } = error as NodeJS.ErrnoException;
  return `The request failed: ${code ?? message}`;
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 18,
    name: 'Claim a delivery attempt (and read the event), write its outcome, give it back',
    operation:
      "UpdateItem, conditional on `status`, `deliveryAttempt` and `deliveryLease` (or its own `deliveryClaim`), `ReturnValues: ALL_NEW` for the claim; conditional UpdateItem (a transaction with the endpoint's disabling on 410) for the outcome",
    index: 'table',
    key: 'pattern 3 (the event)',
    usedBy: 'webhook worker',
    tests: ['store/data-model', 'unit/deliver-webhook', 'http/webhook-delivery'],
  },
  {
    n: 19,
    name: 'Webhook event and its endpoint by id',
    operation:
      'BatchGetItem of the endpoints a batch of delivery messages names (GetItem alongside the claim of 18 for a message that names none); the retry action: GetItem ×2',
    index: 'table',
    key: 'pattern 3',
    usedBy: 'webhook worker, retry action',
    tests: ['unit/deliver-webhook'],
  },
];
