import { entitlements } from '#shared/api/entitlements.ts';
import { entitlementDocument } from '#shared/domain/entitlements/document.ts';
import { retrieveEntitlement } from '#shared/domain/entitlements/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(entitlements.retrieve, async ({ actor, params }) =>
  ok(entitlementDocument(await retrieveEntitlement(actor, params.id))),
);
