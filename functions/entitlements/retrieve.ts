import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { entitlementDocument } from '#shared/resources/entitlements/document.ts';
import { entitlements } from '#shared/resources/entitlements/operations.ts';
import { retrieveEntitlement } from '#shared/resources/entitlements/service.ts';

export const handler = operation(entitlements.retrieve, async ({ actor, params }) =>
  ok(entitlementDocument(await retrieveEntitlement(actor, params.id))),
);
