/**
 * Handlers of a license's users' operations, one per declaration of operations.ts under the same
 * key. Each export is a factory: the operation's function calls it once to build its Lambda
 * handler (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { noContent, okCollection } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { userDocument } from '../users/document.ts';
import { licenseUserDocument } from './document.ts';
import { licenseUsers } from './operations.ts';
import { attachUsers, detachUsers, listLicenseUsers } from './service.ts';

export const list = () =>
  operation(licenseUsers.list, async (call) =>
    listReply(call, await listLicenseUsers(call.actor, call.params.id, call.page), userDocument),
  );

export const attach = () =>
  operation(licenseUsers.attach, async ({ actor, params, body }) =>
    okCollection((await attachUsers(actor, params.id, body.data)).map(licenseUserDocument)),
  );

export const detach = () =>
  operation(licenseUsers.detach, async ({ actor, params, body }) => {
    await detachUsers(actor, params.id, body.data);
    return noContent();
  });
