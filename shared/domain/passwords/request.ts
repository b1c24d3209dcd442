/**
 * POST /passwords: a password-reset request. The request path does the same two things for
 * every well-formed request, whether or not the address belongs to a user — count it against
 * the address's rate limit and queue it — so neither the answer nor its timing tells whether
 * the address exists. The reset worker (reset.ts) does the rest.
 */
import { randomUUID } from 'node:crypto';
import type { Requester } from '../../auth/actor.ts';
import { digest } from '../../auth/secrets.ts';
import { LimitReached, type LimitState } from '../../errors.ts';
import { enqueue } from '../../queue.ts';
import { hit } from '../../store/rate-limit.ts';
import { normaliseEmail } from '../users/user.ts';

export const RESETS_PER_HOUR = 5;

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

/** Queues the request and answers where the address's limit stands (the same whether or not a user has it). */
export async function requestPasswordReset(requester: Requester, input: ResetRequest): Promise<LimitState> {
  const email = normaliseEmail(input.email);
  const { allowed, ...limit } = await hit(`PASSWORD_RESET#${requester.account.id}#${digest(email)}`, RESETS_PER_HOUR, 3600);
  if (!allowed) throw new LimitReached('Too many password reset requests for this address; try again later', limit);
  // No user can hold such an address: nothing to queue, and the answer stays the same.
  if (email.length > 255 || !/^[^\s@]+@[^\s@]+$/.test(email)) return limit;
  const message: ResetMessage = {
    resetId: randomUUID(),
    accountId: requester.account.id,
    environmentId: requester.scope.environmentId,
    email,
    deliver: input.deliver ?? true,
  };
  await enqueue('mail', message);
  return limit;
}
