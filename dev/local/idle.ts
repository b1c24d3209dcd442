/**
 * When the local stack has nothing left to do soon, so that a program (a test, most of all) can
 * say "nothing more happened" without sleeping for a guessed while first.
 *
 * Idle means, at one moment: every record of the table's stream written before the look began
 * has been handed to its stream worker (the outbox relay, dev/local/streams.ts); in every
 * worker queue no message is waiting, none is in flight (received and not yet deleted) and none
 * is delayed to within DUE_SOON_SECONDS; no poller batch, relay batch and no scheduled run (a
 * heartbeat sweep, dev/local/scheduler.ts) is running; and none started while the stream and
 * the queues were being read. Work always sits in one of those places: a request commits what it
 * asks to be sent before it answers, and the relay sends it before its batch ends; a sweep
 * commits before its run ends; a worker sends its follow-ups
 * (a webhook delivery, a mail, a purge step, a retry) and does its side effects (a POST to a
 * receiver, a mail to the SES server) before its messages are deleted; a failed message stays
 * in flight until it comes back. So once idle, nothing already asked for is still to come,
 * except what was delayed further: a purge's or cascade's second pass (30 s and 10 s on), a
 * webhook retry on the production schedule, a heartbeat that has not run out yet. The first two
 * are reported (`later`), not waited for; the test stack's WEBHOOK_RETRY_DELAYS and
 * SECOND_PASS_DELAY_SECONDS are a second each, so its retries and second passes are waited for.
 * Dead-letter queues are not watched: nothing consumes them.
 */

import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { PollerActivity } from './poller.ts';

/** A delayed message due within this many seconds is work still to come. */
export const DUE_SOON_SECONDS = 5;

export interface QueueState {
  waiting: number;
  inFlight: number;
  /** Delayed, due within DUE_SOON_SECONDS. */
  dueSoon: number;
  /** Delayed, due after that. */
  later: number;
}

export interface IdleSources {
  queues(): Promise<Record<string, QueueState>>;
  activity(): PollerActivity;
  /** Resolves once every stream record written before the call has been handed on (a relay batch counts in `activity`). */
  streamsCaughtUp?(): Promise<void>;
}

export interface IdleReport {
  idle: boolean;
  waitedMs: number;
  /** What the last look found. */
  queues: Record<string, QueueState>;
  batchesRunning: number;
}

/**
 * Queue states through the SQS API, for a poller of queues outside the stack's own. The API
 * does not tell when a delayed message is due: every one counts as due soon.
 */
export function queueStatesOverApi(
  client: SQSClient,
  queueUrls: Readonly<Record<string, string>>,
): () => Promise<Record<string, QueueState>> {
  return async () => {
    const states = await Promise.all(
      Object.entries(queueUrls).map(async ([queue, url]) => {
        const { Attributes = {} } = await client.send(
          new GetQueueAttributesCommand({
            QueueUrl: url,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
          }),
        );
        const state: QueueState = {
          waiting: Number(Attributes.ApproximateNumberOfMessages ?? 0),
          inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
          dueSoon: Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0),
          later: 0,
        };
        return [queue, state] as const;
      }),
    );
    return Object.fromEntries(states);
  };
}

/** One look: idle only if no batch ran from before the stream and the queues were read to after. */
async function look(sources: IdleSources, started: number): Promise<IdleReport> {
  const before = sources.activity();
  // The stream first: what the relay hands on lands in the queues read next.
  await sources.streamsCaughtUp?.();
  const queues = await sources.queues();
  const after = sources.activity();
  const quiet = Object.values(queues).every((state) => state.waiting + state.inFlight + state.dueSoon === 0);
  const idle = quiet && before.running === 0 && after.running === 0 && before.started === after.started;
  return { idle, waitedMs: Date.now() - started, queues, batchesRunning: Math.max(before.running, after.running) };
}

/** Resolves as soon as the stack is idle, or after `timeoutMs` with what still keeps it busy. */
export async function waitUntilIdle(sources: IdleSources, timeoutMs: number, intervalMs = 25): Promise<IdleReport> {
  const started = Date.now();
  for (;;) {
    const report = await look(sources, started);
    if (report.idle || Date.now() - started >= timeoutMs) return report;
    await new Promise((resolveWait) => setTimeout(resolveWait, intervalMs));
  }
}

/** The longest a caller may ask to wait. */
const MAX_WAIT_SECONDS = 120;
const DEFAULT_WAIT_SECONDS = 30;

/**
 * `GET /_local/idle?timeout=<seconds>`: waits until idle (at most `timeout`, 30 s by default),
 * then answers 200 with the report, or 503 with what was still busy when the time ran out.
 */
export async function idleResponse(sources: IdleSources, query: URLSearchParams): Promise<APIGatewayProxyStructuredResultV2> {
  const asked = Number(query.get('timeout') ?? DEFAULT_WAIT_SECONDS);
  const seconds = Number.isFinite(asked) && asked >= 0 ? Math.min(asked, MAX_WAIT_SECONDS) : DEFAULT_WAIT_SECONDS;
  const report = await waitUntilIdle(sources, seconds * 1000);
  return { statusCode: report.idle ? 200 : 503, headers: { 'content-type': 'application/json' }, body: JSON.stringify(report) };
}
