/**
 * POST /passwords: a password-reset request. The request path does the same two things for
 * every well-formed request, whether or not the address belongs to a user — count it against
 * the address's rate limit and queue it — so neither the answer nor its timing tells whether
 * the address exists. The reset worker (reset.ts) does the rest.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { digest } from '../../auth/secrets.ts';
import { metaDocument, nonBlank, parseBody } from '../../http/body.ts';
import { LimitReached } from '../../errors.ts';
import { rateLimitHeaders } from '../../http/errors.ts';
import type { RequestContext } from '../../http/pipeline.ts';
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

const requestBody = metaDocument({ email: nonBlank(), deliver: z.optional(z.boolean()) });

export async function requestPasswordReset(ctx: RequestContext): Promise<Record<string, string>> {
  const { meta } = parseBody(ctx.body, requestBody);
  const email = normaliseEmail(meta.email);
  const limit = await hit(`PASSWORD_RESET#${ctx.account.id}#${digest(email)}`, RESETS_PER_HOUR, 3600);
  if (!limit.allowed) throw new LimitReached('Too many password reset requests for this address; try again later', limit);
  const headers = rateLimitHeaders(limit);
  // No user can hold such an address: nothing to queue, and the answer stays the same.
  if (email.length > 255 || !/^[^\s@]+@[^\s@]+$/.test(email)) return headers;
  const message: ResetMessage = {
    resetId: randomUUID(),
    accountId: ctx.account.id,
    environmentId: ctx.scope.environmentId,
    email,
    deliver: meta.deliver ?? true,
  };
  await enqueue('mail', message);
  return headers;
}
