import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { userDocument } from '#shared/resources/users/document.ts';
import { users } from '#shared/resources/users/operations.ts';
import { unbanUser } from '#shared/resources/users/service.ts';

export const handler = operation(users.unban, async ({ actor, params }) => ok(userDocument(await unbanUser(actor, params.id))));
