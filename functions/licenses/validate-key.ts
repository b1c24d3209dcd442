import { operation } from '#shared/http/pipeline.ts';
import { licenses, validationReply } from '#shared/resources/licenses/operations.ts';
import { validateKey } from '#shared/resources/licenses/validation.ts';

/** POST /licenses/actions/validate-key: no bearer; the key is the credential, inside the request's environment. */
export const handler = operation(licenses.validateKey, async ({ actor, body: { meta } }) =>
  validationReply(await validateKey(actor, meta), meta),
);
