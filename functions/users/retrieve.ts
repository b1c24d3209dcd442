import { users } from '#shared/api/users.ts';
import { userDocument } from '#shared/domain/users/document.ts';
import { retrieveUser } from '#shared/domain/users/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(users.retrieve, async ({ actor, params }) => ok(userDocument(await retrieveUser(actor, params.id))));
