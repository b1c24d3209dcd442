import { licenses, validationReply } from '#shared/api/licenses.ts';
import { validateLicense } from '#shared/domain/licenses/validation.ts';
import { operation } from '#shared/http/pipeline.ts';

/** POST /licenses/<id>/actions/validate: a bearer validates a license it may see. */
export const handler = operation(licenses.validate, async ({ actor, params, body }) =>
  validationReply(await validateLicense(actor, params.id, body?.meta), body?.meta),
);
