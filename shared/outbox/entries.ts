/**
 * The outbox: what a committed change asks to be sent, read from the table's stream. A change
 * writes, in its own transaction, an item that means "send this" (a webhook event, a password-reset
 * request) or removes one whose removal means it (an environment); the relay
 * (functions/workers/relay-outbox.ts) turns each such stream record into one queue message. So a
 * change is never committed without its message being sent, and no request sends after its commit.
 *
 * One entry per kind of message: the change (`INSERT` of the item, or its `REMOVE`), the `type`
 * attribute of the item's image (the new one for an insert, the old one for a removal), the queue,
 * and the message built from that image alone. The event source's filters (`outboxFilters`) and
 * the relay's queue grants (`outboxAccess`) follow from the entries, so a new kind of message is one
 * entry here and nothing else.
 *
 * A record may reach the relay more than once (the stream and its event source deliver at least
 * once; a batch is retried from its first failed record): every consumer acts once per message
 * (a delivery attempt is claimed on its event, a purge step on its marker, a reset request on its
 * id: docs/operations.md, "The outbox relay").
 */
import type { AttributeValue } from 'aws-lambda';
import type { Access } from '../access.ts';
import type { DeliveryMessage } from '../events/messages.ts';
import type { CascadeStep } from '../licensing/cascade.ts';
import type { PurgeMessage } from '../resources/environments/service.ts';
import type { ResetMessage } from '../resources/passwords/request.ts';
import type { QueueName } from '../routes.ts';
import type { RecordType } from '../store/keys.ts';

/** A stream record's image: the item's attributes, typed as DynamoDB writes them. */
export type Image = Readonly<Record<string, AttributeValue>>;

export interface OutboxEntry {
  /** Names the entry in logs and in the relay's failures. */
  name: string;
  /** The change that sends: the item written (`INSERT`) or removed (`REMOVE`). */
  on: 'INSERT' | 'REMOVE';
  /** The `type` attribute of the item (of its new image for an insert, of its old one for a removal). */
  type: string;
  queue: QueueName;
  /** The message, from the image alone; throws MalformedImage when the image lacks what it needs. */
  message(image: Image): unknown;
}

/** The `type` of a cascade's marker, written by the removal that leaves work to the cascades worker (shared/licensing/removal.ts). */
export const CASCADE_MARKER_TYPE = 'cascade-markers';

/** The `type` of the item a password-reset request writes (shared/resources/passwords/request.ts). */
export const RESET_REQUEST_TYPE = 'password-reset-requests';

export const outbox: readonly OutboxEntry[] = [
  {
    // Every new webhook event, a retry's included: its first delivery attempt.
    name: 'webhook delivery',
    on: 'INSERT',
    type: 'webhook-events',
    queue: 'webhooks',
    message: (event): DeliveryMessage => ({
      accountId: text(event, 'accountId'),
      webhookEventId: text(event, 'id'),
      endpointId: text(event, 'endpointId'),
      attempt: 1,
    }),
  },
  {
    // A deleted environment: the purge of everything it held.
    name: 'environment purge',
    on: 'REMOVE',
    type: 'environments',
    queue: 'purge',
    message: (environment): PurgeMessage => ({ accountId: text(environment, 'accountId'), environmentId: text(environment, 'id') }),
  },
  {
    // A password-reset request: the reset worker finds the user and hands the token over.
    name: 'password-reset mail',
    on: 'INSERT',
    type: RESET_REQUEST_TYPE,
    queue: 'mail',
    message: (request): ResetMessage => ({
      resetId: text(request, 'id'),
      accountId: text(request, 'accountId'),
      environmentId: textOrNull(request, 'environmentId'),
      email: text(request, 'email'),
      deliver: flag(request, 'deliver'),
    }),
  },
  {
    // A large removal, or a deleted user's owner links: the cascade's first step.
    name: 'cascade',
    on: 'INSERT',
    type: CASCADE_MARKER_TYPE,
    queue: 'cascades',
    message: (marker): CascadeStep => {
      const root = marker.root?.M ?? {};
      return {
        kind: text(marker, 'kind') as CascadeStep['kind'],
        accountId: text(marker, 'accountId'),
        root: { type: text(root, 'type') as RecordType, id: text(root, 'id'), environmentId: textOrNull(root, 'environmentId') },
        environments: (marker.environments?.L ?? []).map((value) => value.S ?? null),
      };
    },
  },
];

/** A record's image lacks what its entry's message needs: no retry will change that. */
export class MalformedImage extends Error {
  override name = 'MalformedImage';
}

function text(image: Image, name: string): string {
  const value = image[name]?.S;
  if (value === undefined || value === '') throw new MalformedImage(`The item has no ${name}`);
  return value;
}

function textOrNull(image: Image, name: string): string | null {
  if (image[name] === undefined || image[name].NULL) return null;
  return text(image, name);
}

function flag(image: Image, name: string): boolean {
  const value = image[name]?.BOOL;
  if (value === undefined) throw new MalformedImage(`The item has no ${name}`);
  return value;
}

/** What the relay reads of a stream record (a DynamoDBRecord, as Lambda and the local poller hand it). */
export interface StreamChange {
  eventName?: string;
  dynamodb?: { NewImage?: Image; OldImage?: Image };
}

const imageOf = (change: StreamChange, on: OutboxEntry['on']) => (on === 'INSERT' ? change.dynamodb?.NewImage : change.dynamodb?.OldImage);

/** The entry a stream record belongs to, with the image its message is made from; undefined for a record of no entry. */
export function entryOf(change: StreamChange): { entry: OutboxEntry; image: Image } | undefined {
  for (const entry of outbox) {
    if (change.eventName !== entry.on) continue;
    const image = imageOf(change, entry.on);
    if (image?.type?.S === entry.type) return { entry, image };
  }
  return undefined;
}

/**
 * Lambda event filter patterns that let exactly the entries' records through: one per change,
 * naming the types of its entries (a pattern's list matches any of its values). Lambda evaluates
 * at most five filters of a mapping by default; these are at most two, however many entries.
 */
export function outboxFilters(entries: readonly OutboxEntry[] = outbox): Record<string, unknown>[] {
  const changes = [...new Set(entries.map((entry) => entry.on))];
  return changes.map((on) => ({
    eventName: [on],
    dynamodb: {
      [on === 'INSERT' ? 'NewImage' : 'OldImage']: {
        type: { S: [...new Set(entries.filter((entry) => entry.on === on).map((entry) => entry.type))] },
      },
    },
  }));
}

/** The relay may send to the queues of the entries, and to nothing else. */
export function outboxAccess(entries: readonly OutboxEntry[] = outbox): Access[] {
  return [...new Set(entries.map((entry) => entry.queue))].map((queue): Access => `queue:${queue}`);
}
