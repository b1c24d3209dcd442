import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { policyDocument } from '#shared/resources/policies/document.ts';
import { policies } from '#shared/resources/policies/operations.ts';
import { createPolicy } from '#shared/resources/policies/service.ts';

export const handler = operation(policies.create, async ({ actor, body: { data } }) =>
  created(policyDocument(await createPolicy(actor, { ...data.attributes, productId: data.relationships.product.data.id }))),
);
