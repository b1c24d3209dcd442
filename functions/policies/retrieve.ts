import { policyDocument } from '#shared/domain/policies/document.ts';
import { retrievePolicy } from '#shared/domain/policies/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(policyDocument(await retrievePolicy(ctx, ctx.params.id!))));
