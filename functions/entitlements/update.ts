import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { entitlementDocument } from '#shared/resources/entitlements/document.ts';
import { entitlements } from '#shared/resources/entitlements/operations.ts';
import { updateEntitlement } from '#shared/resources/entitlements/service.ts';

export const handler = operation(entitlements.update, async ({ actor, params, body }) =>
  ok(entitlementDocument(await updateEntitlement(actor, params.id, body.data.attributes ?? {}))),
);
