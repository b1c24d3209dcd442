import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { entitlements } from '#shared/resources/entitlements/operations.ts';
import { deleteEntitlement } from '#shared/resources/entitlements/service.ts';

export const handler = operation(entitlements.delete, async ({ actor, params }) => {
  await deleteEntitlement(actor, params.id);
  return noContent();
});
