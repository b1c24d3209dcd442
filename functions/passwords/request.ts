import { accepted } from '#shared/http/documents.ts';
import { rateLimitHeaders } from '#shared/http/errors.ts';
import { operation } from '#shared/http/pipeline.ts';
import { passwords } from '#shared/resources/passwords/operations.ts';
import { requestPasswordReset } from '#shared/resources/passwords/request.ts';

/** POST /passwords: always 202 with no body for a well-formed request (no address enumeration). */
export const handler = operation(passwords.request, async ({ actor, body: { meta } }) => ({
  ...accepted(),
  headers: rateLimitHeaders(await requestPasswordReset(actor, meta)),
}));
