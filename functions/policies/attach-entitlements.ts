import { okCollection } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { attachmentDocument } from '#shared/resources/entitlements/document.ts';
import { attachEntitlements } from '#shared/resources/entitlements/holders.ts';
import { entitlements } from '#shared/resources/entitlements/operations.ts';

/** 200 with the attachments made. */
export const handler = operation(entitlements.attachToPolicy, async ({ actor, params, body }) =>
  okCollection((await attachEntitlements(actor, 'policies', params.id, body.data)).map(attachmentDocument)),
);
