import { policies } from '#shared/api/policies.ts';
import { policyDocument } from '#shared/domain/policies/document.ts';
import { createPolicy } from '#shared/domain/policies/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(policies.create, async ({ actor, body: { data } }) =>
  created(policyDocument(await createPolicy(actor, { ...data.attributes, productId: data.relationships.product.data.id }))),
);
