import { entitlements } from '#shared/api/entitlements.ts';
import { entitlementDocument } from '#shared/domain/entitlements/document.ts';
import { listEntitlements } from '#shared/domain/entitlements/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(entitlements.list, async (call) =>
  listReply(call, await listEntitlements(call.actor, call.page), entitlementDocument),
);
