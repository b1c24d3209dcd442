import { licenses, validationReply } from '#shared/api/licenses.ts';
import { validateKey } from '#shared/domain/licenses/validation.ts';
import { operation } from '#shared/http/pipeline.ts';

/** POST /licenses/actions/validate-key: no bearer; the key is the credential, inside the request's environment. */
export const handler = operation(licenses.validateKey, async ({ actor, body: { meta } }) =>
  validationReply(await validateKey(actor, meta), meta),
);
