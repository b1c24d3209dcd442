import { entitlements } from '#shared/api/entitlements.ts';
import { entitlementDocument } from '#shared/domain/entitlements/document.ts';
import { listHolderEntitlements } from '#shared/domain/entitlements/holders.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(entitlements.ofLicense, async (call) =>
  listReply(call, await listHolderEntitlements(call.actor, 'licenses', call.params.id, call.page), entitlementDocument),
);
