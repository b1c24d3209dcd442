import { entitlements } from '#shared/api/entitlements.ts';
import { entitlementDocument } from '#shared/domain/entitlements/document.ts';
import { updateEntitlement } from '#shared/domain/entitlements/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(entitlements.update, async ({ actor, params, body }) =>
  ok(entitlementDocument(await updateEntitlement(actor, params.id, body.data.attributes ?? {}))),
);
