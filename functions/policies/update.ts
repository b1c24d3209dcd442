import { policyDocument } from '#shared/domain/policies/document.ts';
import { updatePolicy } from '#shared/domain/policies/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => ok(policyDocument(await updatePolicy(ctx, ctx.params.id!))));
