import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { entitlementDocument } from '#shared/resources/entitlements/document.ts';
import { entitlements } from '#shared/resources/entitlements/operations.ts';
import { createEntitlement } from '#shared/resources/entitlements/service.ts';

export const handler = operation(entitlements.create, async ({ actor, body }) =>
  created(entitlementDocument(await createEntitlement(actor, body.data.attributes))),
);
