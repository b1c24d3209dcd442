import { validationReply } from '#shared/domain/licenses/document.ts';
import { validateLicense } from '#shared/domain/licenses/validation.ts';
import { operation } from '#shared/http/pipeline.ts';

/** POST /licenses/<id>/actions/validate: a bearer validates a license it may see. */
export const handler = operation('bearer', async (ctx) => validationReply(await validateLicense(ctx, ctx.params.id!)));
