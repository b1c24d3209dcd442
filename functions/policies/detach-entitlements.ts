import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { detachEntitlements } from '#shared/resources/entitlements/holders.ts';
import { entitlements } from '#shared/resources/entitlements/operations.ts';

export const handler = operation(entitlements.detachFromPolicy, async ({ actor, params, body }) => {
  await detachEntitlements(actor, 'policies', params.id, body.data);
  return noContent();
});
