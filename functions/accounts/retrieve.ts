import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { accountDocument } from '#shared/resources/accounts/document.ts';
import { accounts } from '#shared/resources/accounts/operations.ts';
import { retrieveAccount } from '#shared/resources/accounts/service.ts';

export const handler = operation(accounts.retrieve, async ({ actor }) => ok(accountDocument(await retrieveAccount(actor))));
