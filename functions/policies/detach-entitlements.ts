import { entitlements } from '#shared/api/entitlements.ts';
import { detachEntitlements } from '#shared/domain/entitlements/holders.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(entitlements.detachFromPolicy, async ({ actor, params, body }) => {
  await detachEntitlements(actor, 'policies', params.id, body.data);
  return noContent();
});
