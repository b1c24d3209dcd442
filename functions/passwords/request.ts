import { requestPasswordReset } from '#shared/domain/passwords/request.ts';
import { operation } from '#shared/http/pipeline.ts';

/** POST /passwords: always 202 with no body for a well-formed request (no address enumeration). */
export const handler = operation('none', async (ctx) => ({ status: 202, headers: await requestPasswordReset(ctx) }), { limitPerAddress: 'passwords.request' });
