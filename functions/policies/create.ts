import { policyDocument } from '#shared/domain/policies/document.ts';
import { createPolicy } from '#shared/domain/policies/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation('bearer', async (ctx) => created(policyDocument(await createPolicy(ctx))));
