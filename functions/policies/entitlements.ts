import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { entitlementDocument } from '#shared/resources/entitlements/document.ts';
import { listHolderEntitlements } from '#shared/resources/entitlements/holders.ts';
import { entitlements } from '#shared/resources/entitlements/operations.ts';

export const handler = operation(entitlements.ofPolicy, async (call) =>
  listReply(call, await listHolderEntitlements(call.actor, 'policies', call.params.id, call.page), entitlementDocument),
);
