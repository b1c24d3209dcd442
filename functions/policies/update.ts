import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { policyDocument } from '#shared/resources/policies/document.ts';
import { policies } from '#shared/resources/policies/operations.ts';
import { updatePolicy } from '#shared/resources/policies/service.ts';

export const handler = operation(policies.update, async ({ actor, params, body }) =>
  ok(policyDocument(await updatePolicy(actor, params.id, body.data.attributes ?? {}))),
);
