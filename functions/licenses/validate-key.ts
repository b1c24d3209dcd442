import { validationReply } from '#shared/domain/licenses/document.ts';
import { validateKey } from '#shared/domain/licenses/validation.ts';
import { operation } from '#shared/http/pipeline.ts';

/** POST /licenses/actions/validate-key: no bearer; the key is the credential, inside the request's environment. */
export const handler = operation('none', async (ctx) => validationReply(await validateKey(ctx)), { limitPerAddress: 'licenses.validateKey' });
