import { users } from '#shared/api/users.ts';
import { userDocument } from '#shared/domain/users/document.ts';
import { createUser } from '#shared/domain/users/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(users.create, async ({ actor, body }) =>
  created(userDocument(await createUser(actor, body.data.attributes))),
);
