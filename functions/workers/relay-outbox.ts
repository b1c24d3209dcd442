/**
 * Fed by the table's stream (the route table's `streamWorkers`): relays what each committed change
 * asks to be sent, one queue message per outbox record (shared/outbox/entries.ts). Lambda's event
 * source hands it only the records its filters let through, retries a batch from the first record
 * it reports as failed, and sends the description of a batch whose retries are spent to the relay's
 * on-failure queue.
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { relay } from '#shared/outbox/relay.ts';
import { tracedWorker } from '#shared/tracer.ts';

export const handler = tracedWorker('workers.relayOutbox', async (event: DynamoDBStreamEvent) => relay(event.Records));
