import { users } from '#shared/api/users.ts';
import { userDocument } from '#shared/domain/users/document.ts';
import { updateUser } from '#shared/domain/users/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(users.update, async ({ actor, params, body }) =>
  ok(userDocument(await updateUser(actor, params.id, body.data.attributes ?? {}))),
);
