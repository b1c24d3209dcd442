import { policies } from '#shared/api/policies.ts';
import { policyDocument } from '#shared/domain/policies/document.ts';
import { retrievePolicy } from '#shared/domain/policies/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(policies.retrieve, async ({ actor, params }) =>
  ok(policyDocument(await retrievePolicy(actor, params.id))),
);
