import { users } from '#shared/api/users.ts';
import { userDocument } from '#shared/domain/users/document.ts';
import { banUser } from '#shared/domain/users/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(users.ban, async ({ actor, params }) => ok(userDocument(await banUser(actor, params.id))));
