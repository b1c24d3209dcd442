/**
 * Handlers of the entitlements' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok, okCollection } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { attachmentDocument, entitlementDocument } from './document.ts';
import { attachEntitlements, detachEntitlements, listHolderEntitlements } from './holders.ts';
import { entitlements } from './operations.ts';
import { createEntitlement, deleteEntitlement, listEntitlements, retrieveEntitlement, updateEntitlement } from './service.ts';

export const create = () =>
  operation(entitlements.create, async ({ actor, body }) =>
    created(entitlementDocument(await createEntitlement(actor, body.data.attributes))),
  );

export const list = () =>
  operation(entitlements.list, async (call) => listReply(call, await listEntitlements(call.actor, call.page), entitlementDocument));

export const retrieve = () =>
  operation(entitlements.retrieve, async ({ actor, params }) => ok(entitlementDocument(await retrieveEntitlement(actor, params.id))));

export const update = () =>
  operation(entitlements.update, async ({ actor, params, body }) =>
    ok(entitlementDocument(await updateEntitlement(actor, params.id, body.data.attributes ?? {}))),
  );

export const remove = () =>
  operation(entitlements.remove, async ({ actor, params }) => {
    await deleteEntitlement(actor, params.id);
    return noContent();
  });

export const ofPolicy = () =>
  operation(entitlements.ofPolicy, async (call) =>
    listReply(call, await listHolderEntitlements(call.actor, 'policies', call.params.id, call.page), entitlementDocument),
  );

/** 200 with the attachments made. */
export const attachToPolicy = () =>
  operation(entitlements.attachToPolicy, async ({ actor, params, body }) =>
    okCollection((await attachEntitlements(actor, 'policies', params.id, body.data)).map(attachmentDocument)),
  );

export const detachFromPolicy = () =>
  operation(entitlements.detachFromPolicy, async ({ actor, params, body }) => {
    await detachEntitlements(actor, 'policies', params.id, body.data);
    return noContent();
  });

export const ofLicense = () =>
  operation(entitlements.ofLicense, async (call) =>
    listReply(call, await listHolderEntitlements(call.actor, 'licenses', call.params.id, call.page), entitlementDocument),
  );

/** 200 with the attachments made. */
export const attachToLicense = () =>
  operation(entitlements.attachToLicense, async ({ actor, params, body }) =>
    okCollection((await attachEntitlements(actor, 'licenses', params.id, body.data)).map(attachmentDocument)),
  );

export const detachFromLicense = () =>
  operation(entitlements.detachFromLicense, async ({ actor, params, body }) => {
    await detachEntitlements(actor, 'licenses', params.id, body.data);
    return noContent();
  });
