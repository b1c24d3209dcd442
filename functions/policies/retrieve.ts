import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { policyDocument } from '#shared/resources/policies/document.ts';
import { policies } from '#shared/resources/policies/operations.ts';
import { retrievePolicy } from '#shared/resources/policies/service.ts';

export const handler = operation(policies.retrieve, async ({ actor, params }) =>
  ok(policyDocument(await retrievePolicy(actor, params.id))),
);
