import { userDocument } from '#shared/domain/users/document.ts';
import { setUserStatus } from '#shared/domain/users/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(userDocument(await setUserStatus(ctx, ctx.params.id!, 'ACTIVE'))));
