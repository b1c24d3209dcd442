import { policies } from '#shared/api/policies.ts';
import { policyDocument } from '#shared/domain/policies/document.ts';
import { updatePolicy } from '#shared/domain/policies/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(policies.update, async ({ actor, params, body }) =>
  ok(policyDocument(await updatePolicy(actor, params.id, body.data.attributes ?? {}))),
);
