/**
 * The webhooks queue's message: one delivery attempt of one webhook event. `endpointId` (the
 * event's endpoint) lets the worker read the endpoint while it claims the event; messages
 * without it are delivered all the same. `notBefore` (epoch ms) marks a hop of a delay longer
 * than SQS's 15 minutes: the worker sends it on again until that time has come.
 *
 * An event's first attempt is sent by the outbox relay, from the stream record of the event's
 * item (shared/outbox/entries.ts); each later one by the worker that made the one before
 * (`scheduleAttempt`).
 */

import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { enqueue, MAX_DELAY_SECONDS } from '../queue.ts';

export interface DeliveryMessage {
  accountId: string;
  webhookEventId: string;
  endpointId?: string;
  /** 1 for the first attempt. */
  attempt: number;
  notBefore?: number;
}

/**
 * Built on first use: only the delivery worker parses messages, so the bundles that merely send
 * them (every writer, the password-reset worker) carry no zod for it. zod's functional build
 * ships without messages: a poison message names its faults in English.
 */
let schema: ReturnType<typeof deliveryMessageSchema> | undefined;
function deliveryMessageSchema() {
  z.config(en());
  return z.strictObject({
    accountId: z.string().check(z.minLength(1)),
    webhookEventId: z.string().check(z.minLength(1)),
    endpointId: z.optional(z.string().check(z.minLength(1))),
    attempt: z.int().check(z.gte(1)),
    notBefore: z.optional(z.int()),
  });
}

/** A message no worker can ever process (not JSON, wrong shape). */
export class PoisonMessage extends Error {
  override name = 'PoisonMessage';
}

export function parseDeliveryMessage(body: string): DeliveryMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new PoisonMessage('The delivery message is not JSON');
  }
  schema ??= deliveryMessageSchema();
  const result = schema.safeParse(json);
  if (!result.success)
    throw new PoisonMessage(`The delivery message is malformed: ${result.error.issues.map((i) => i.message).join('; ')}`);
  return result.data;
}

/**
 * Schedules an attempt `delaySeconds` from now: a delayed message when SQS can hold it that
 * long, otherwise a hop of 15 minutes carrying the time the attempt is due.
 */
export async function scheduleAttempt(message: DeliveryMessage, delaySeconds: number, now = Date.now()): Promise<void> {
  const { notBefore: _ignored, ...attempt } = message;
  if (delaySeconds <= MAX_DELAY_SECONDS) return enqueue('webhooks', attempt, delaySeconds);
  await enqueue('webhooks', { ...attempt, notBefore: now + Math.round(delaySeconds * 1000) }, MAX_DELAY_SECONDS);
}
