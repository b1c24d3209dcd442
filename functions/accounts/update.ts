import { accounts } from '#shared/api/accounts.ts';
import { accountDocument } from '#shared/domain/accounts/document.ts';
import { updateAccount } from '#shared/domain/accounts/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(accounts.update, async ({ actor, body }) =>
  ok(accountDocument(await updateAccount(actor, body.data.attributes ?? {}))),
);
