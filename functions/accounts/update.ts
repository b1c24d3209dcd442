import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { accountDocument } from '#shared/resources/accounts/document.ts';
import { accounts } from '#shared/resources/accounts/operations.ts';
import { updateAccount } from '#shared/resources/accounts/service.ts';

export const handler = operation(accounts.update, async ({ actor, body }) =>
  ok(accountDocument(await updateAccount(actor, body.data.attributes ?? {}))),
);
