import { operation } from '#shared/http/pipeline.ts';
import { licenses, validationReply } from '#shared/resources/licenses/operations.ts';
import { validateLicense } from '#shared/resources/licenses/validation.ts';

/** POST /licenses/<id>/actions/validate: a bearer validates a license it may see. */
export const handler = operation(licenses.validate, async ({ actor, params, body }) =>
  validationReply(await validateLicense(actor, params.id, body?.meta), body?.meta),
);
