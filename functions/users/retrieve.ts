import { userDocument } from '#shared/domain/users/document.ts';
import { retrieveUser } from '#shared/domain/users/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(userDocument(await retrieveUser(ctx, ctx.params.id!))));
