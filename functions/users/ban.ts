import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { userDocument } from '#shared/resources/users/document.ts';
import { users } from '#shared/resources/users/operations.ts';
import { banUser } from '#shared/resources/users/service.ts';

export const handler = operation(users.ban, async ({ actor, params }) => ok(userDocument(await banUser(actor, params.id))));
