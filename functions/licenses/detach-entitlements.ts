import { entitlements } from '#shared/api/entitlements.ts';
import { detachEntitlements } from '#shared/domain/entitlements/holders.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(entitlements.detachFromLicense, async ({ actor, params, body }) => {
  await detachEntitlements(actor, 'licenses', params.id, body.data);
  return noContent();
});
