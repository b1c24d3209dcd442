import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { entitlementDocument } from '#shared/resources/entitlements/document.ts';
import { entitlements } from '#shared/resources/entitlements/operations.ts';
import { listEntitlements } from '#shared/resources/entitlements/service.ts';

export const handler = operation(entitlements.list, async (call) =>
  listReply(call, await listEntitlements(call.actor, call.page), entitlementDocument),
);
