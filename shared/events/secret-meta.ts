/**
 * Secrets in an event's `meta` (docs/rules.md §7.2). A value the emitter marks `secret(...)` (see
 * sealed-meta.ts) is delivered to the endpoint in the signed POST, but the stored payload (all
 * the API ever shows of an event) holds "[FILTERED]" in its place; the real values are kept
 * sealed beside it, in the event's `sealedMeta`, which no document shows.
 *
 *   await emitEvent(tx, user, 'user.password-reset', userDocument(user), { passwordResetToken: secret(token) });
 *
 * The seal's context is what an event and its retries share (account, kind, idempotency token):
 * a retry copies the sealed value as it is, and it unseals for no other event.
 *
 * This half knows no key: a secret carries the sealing it was made with, so only the functions
 * that make secrets (and the delivery worker, which unseals) carry the sealing module and its
 * KMS client; every other function that emits events stays small.
 */
export const FILTERED = '[FILTERED]';

export type Sealer = (plaintext: string, context: string) => Promise<string>;

export class Secret {
  constructor(
    readonly value: unknown,
    readonly sealer: Sealer,
  ) {}

  /** Serialised by mistake (a log line), it still tells nothing. */
  toJSON(): string {
    return FILTERED;
  }
}

export type EventMeta = Record<string, unknown>;

/**
 * The meta as stored and shown (secrets filtered), and, when it holds secrets, how to seal
 * them for one event.
 */
export function splitMeta(meta: EventMeta): { shown: EventMeta; sealFor?: (event: EventIdentity) => Promise<string> } {
  const shown: EventMeta = {};
  const secrets: EventMeta = {};
  let sealer: Sealer | undefined;
  for (const [name, value] of Object.entries(meta)) {
    if (value instanceof Secret) {
      secrets[name] = value.value;
      sealer = value.sealer;
    }
    shown[name] = value instanceof Secret ? FILTERED : value;
  }
  if (!sealer) return { shown };
  const seal = sealer;
  return { shown, sealFor: (event) => seal(JSON.stringify(secrets), contextOf(event)) };
}

/** What an event and its retries have in common. */
export interface EventIdentity {
  accountId: string;
  event: string;
  idempotencyToken: string;
}

export const contextOf = ({ accountId, event, idempotencyToken }: EventIdentity) =>
  `webhook-event meta\0${accountId}\0${event}\0${idempotencyToken}`;
