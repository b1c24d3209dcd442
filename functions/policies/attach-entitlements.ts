import { entitlements } from '#shared/api/entitlements.ts';
import { attachmentDocument } from '#shared/domain/entitlements/document.ts';
import { attachEntitlements } from '#shared/domain/entitlements/holders.ts';
import { okCollection } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** 200 with the attachments made. */
export const handler = operation(entitlements.attachToPolicy, async ({ actor, params, body }) =>
  okCollection((await attachEntitlements(actor, 'policies', params.id, body.data)).map(attachmentDocument)),
);
