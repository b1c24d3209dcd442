import { userDocument } from '#shared/domain/users/document.ts';
import { createUser } from '#shared/domain/users/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => created(userDocument(await createUser(ctx))));
