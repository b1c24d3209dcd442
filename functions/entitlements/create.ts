import { entitlements } from '#shared/api/entitlements.ts';
import { entitlementDocument } from '#shared/domain/entitlements/document.ts';
import { createEntitlement } from '#shared/domain/entitlements/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(entitlements.create, async ({ actor, body }) =>
  created(entitlementDocument(await createEntitlement(actor, body.data.attributes))),
);
