/**
 * Handlers of the account's operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { ok } from '../../http/documents.ts';
import { operation } from '../../http/pipeline.ts';
import { accountDocument } from './document.ts';
import { accounts } from './operations.ts';
import { retrieveAccount, updateAccount } from './service.ts';

export const retrieve = () => operation(accounts.retrieve, async ({ actor }) => ok(accountDocument(await retrieveAccount(actor))));

export const update = () =>
  operation(accounts.update, async ({ actor, body }) => ok(accountDocument(await updateAccount(actor, body.data.attributes ?? {}))));
