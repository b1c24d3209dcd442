import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { detachEntitlements } from '#shared/resources/entitlements/holders.ts';
import { entitlements } from '#shared/resources/entitlements/operations.ts';

export const handler = operation(entitlements.detachFromLicense, async ({ actor, params, body }) => {
  await detachEntitlements(actor, 'licenses', params.id, body.data);
  return noContent();
});
