import { policies } from '#shared/api/policies.ts';
import { deletePolicy } from '#shared/domain/policies/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(policies.delete, async ({ actor, params }) => {
  await deletePolicy(actor, params.id);
  return noContent();
});
