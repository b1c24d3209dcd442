import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { policies } from '#shared/resources/policies/operations.ts';
import { deletePolicy } from '#shared/resources/policies/service.ts';

export const handler = operation(policies.delete, async ({ actor, params }) => {
  await deletePolicy(actor, params.id);
  return noContent();
});
