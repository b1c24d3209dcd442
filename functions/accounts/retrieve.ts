import { accountDocument, retrieveAccount } from '#shared/domain/accounts/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(accountDocument(await retrieveAccount(ctx))));
