/**
 * POST /passwords: a password-reset request. The request path does the same two things for
 * every well-formed request, whether or not the address belongs to a user — count it against
 * the address's rate limit and write the request — so neither the answer nor its timing tells
 * whether the address exists. The request's item is an outbox item: the outbox relay sends it to
 * the mail queue from the table's stream (shared/outbox/entries.ts), and the reset worker
 * (reset.ts) does the rest, once per request.
 */
import { randomUUID } from 'node:crypto';
import type { Requester } from '../../auth/actor.ts';
import { digest } from '../../auth/secrets.ts';
import { LimitReached, type LimitState } from '../../errors.ts';
import { RESET_REQUEST_TYPE } from '../../outbox/entries.ts';
import type { AccessPattern } from '../../store/data-model.ts';
import { passwordResetRequestKey } from '../../store/keys.ts';
import { hit } from '../../store/rate-limit.ts';
import { Transaction } from '../../store/transaction.ts';
import { now } from '../rules.ts';
import { normaliseEmail } from '../users/entity.ts';

export const RESETS_PER_HOUR = 5;

/**
 * How long a request's item is kept: the relay reads its stream record within seconds, and the
 * stream keeps records 24 hours; past that the item has nothing left to say.
 */
const REQUEST_KEPT_SECONDS = 24 * 3600;

/** What the reset worker receives. Holds no secret: the worker makes the reset token. */
export interface ResetMessage {
  /** Unique per request: the worker acts once per id. */
  resetId: string;
  accountId: string;
  environmentId: string | null;
  email: string;
  deliver: boolean;
}

export interface ResetRequest {
  email: string;
  /** false: hand the reset token to webhooks (`user.password-reset`) rather than mail it. */
  deliver?: boolean;
}

/** Writes the request and answers where the address's limit stands (the same whether or not a user has it). */
export async function requestPasswordReset(requester: Requester, input: ResetRequest): Promise<LimitState> {
  const email = normaliseEmail(input.email);
  const { allowed, ...limit } = await hit(`PASSWORD_RESET#${requester.account.id}#${digest(email)}`, RESETS_PER_HOUR, 3600);
  if (!allowed) throw new LimitReached('Too many password reset requests for this address; try again later', limit);
  // No user can hold such an address: nothing to send, and the answer stays the same.
  if (email.length > 255 || !/^[^\s@]+@[^\s@]+$/.test(email)) return limit;
  const message: ResetMessage = {
    resetId: randomUUID(),
    accountId: requester.account.id,
    environmentId: requester.scope.environmentId,
    email,
    deliver: input.deliver ?? true,
  };
  const { resetId, ...request } = message;
  const tx = new Transaction();
  tx.put({
    ...passwordResetRequestKey(message.accountId, resetId),
    type: RESET_REQUEST_TYPE,
    id: resetId,
    ...request,
    created: now(),
    expiresAt: Math.floor(Date.now() / 1000) + REQUEST_KEPT_SECONDS,
  });
  await tx.commit();
  return limit;
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 62,
    name: 'Write a password-reset request',
    operation:
      "PutItem of the request's item (`type` `password-reset-requests`, `expiresAt` a day on), after the address's limit (pattern 20): its `INSERT` in the stream sends it to the mail queue (61)",
    index: 'table',
    key: '`PK = A#<acct>#PASSWORD_RESET_REQUEST#<resetId>`, `SK = #`',
    usedBy: 'passwords.request',
    tests: ['http/outbox', 'http/password-reset'],
  },
];
