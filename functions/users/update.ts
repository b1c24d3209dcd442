import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { userDocument } from '#shared/resources/users/document.ts';
import { users } from '#shared/resources/users/operations.ts';
import { updateUser } from '#shared/resources/users/service.ts';

export const handler = operation(users.update, async ({ actor, params, body }) =>
  ok(userDocument(await updateUser(actor, params.id, body.data.attributes ?? {}))),
);
