/**
 * Handlers of the password-reset operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { accepted } from '../../http/documents.ts';
import { rateLimitHeaders } from '../../http/errors.ts';
import { operation } from '../../http/pipeline.ts';
import { passwords } from './operations.ts';
import { requestPasswordReset } from './request.ts';

/** POST /passwords: always 202 with no body for a well-formed request (no address enumeration). */
export const request = () =>
  operation(passwords.request, async ({ actor, body: { meta } }) => ({
    ...accepted(),
    headers: rateLimitHeaders(await requestPasswordReset(actor, meta)),
  }));
