import { entitlements } from '#shared/api/entitlements.ts';
import { deleteEntitlement } from '#shared/domain/entitlements/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(entitlements.delete, async ({ actor, params }) => {
  await deleteEntitlement(actor, params.id);
  return noContent();
});
