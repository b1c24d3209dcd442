/**
 * Secrets in an event's `meta` (DECISIONS §9). A value the emitter marks `secret(...)` is
 * delivered to the endpoint in the signed POST, but the stored payload (all the API ever shows
 * of an event) holds "[FILTERED]" in its place; the real values are kept sealed beside it, in
 * the event's `sealedMeta`, which no document shows.
 *
 *   await emitEvent(tx, user, 'user.password-reset', userDocument(user), { passwordResetToken: secret(token) });
 *
 * The seal's context is what an event and its retries share (account, kind, idempotency token):
 * a retry copies the sealed value as it is, and it unseals for no other event.
 */
import { seal, unseal } from '../auth/seal.ts';

export const FILTERED = '[FILTERED]';

class Secret {
  constructor(readonly value: unknown) {}

  /** Serialised by mistake (a log line), it still tells nothing. */
  toJSON(): string {
    return FILTERED;
  }
}

/** Marks a meta value as secret: delivered, never stored or shown in clear. */
export const secret = (value: unknown): unknown => new Secret(value);

export type EventMeta = Record<string, unknown>;

/** The meta as stored and shown (secrets filtered), and the secrets alone (undefined when none). */
export function splitMeta(meta: EventMeta): { shown: EventMeta; secrets?: EventMeta } {
  const shown: EventMeta = {};
  const secrets: EventMeta = {};
  for (const [name, value] of Object.entries(meta)) {
    if (value instanceof Secret) secrets[name] = value.value;
    shown[name] = value instanceof Secret ? FILTERED : value;
  }
  return Object.keys(secrets).length > 0 ? { shown, secrets } : { shown };
}

/** What an event and its retries have in common. */
export interface EventIdentity {
  accountId: string;
  event: string;
  idempotencyToken: string;
}

const contextOf = ({ accountId, event, idempotencyToken }: EventIdentity) => `webhook-event meta\0${accountId}\0${event}\0${idempotencyToken}`;

export const sealMeta = (secrets: EventMeta, event: EventIdentity): Promise<string> => seal(JSON.stringify(secrets), contextOf(event));

/**
 * The payload as delivered: the stored one with its filtered meta values replaced by the
 * sealed ones. Only the trailing `"meta"` member is rewritten (the payload is `{data, meta}`
 * serialised, meta last): the data goes out byte for byte as stored.
 */
export async function deliveredPayload(event: EventIdentity & { payload: string; sealedMeta?: string }): Promise<string> {
  if (!event.sealedMeta) return event.payload;
  const secrets = JSON.parse(await unseal(event.sealedMeta, contextOf(event))) as EventMeta;
  const { meta } = JSON.parse(event.payload) as { meta?: EventMeta };
  const stored = `,"meta":${JSON.stringify(meta)}}`;
  if (!meta || !event.payload.endsWith(stored)) throw new Error('The payload does not end with the meta its sealed values belong to');
  return `${event.payload.slice(0, -stored.length)},"meta":${JSON.stringify({ ...meta, ...secrets })}}`;
}
