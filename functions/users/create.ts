import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { userDocument } from '#shared/resources/users/document.ts';
import { users } from '#shared/resources/users/operations.ts';
import { createUser } from '#shared/resources/users/service.ts';

export const handler = operation(users.create, async ({ actor, body }) =>
  created(userDocument(await createUser(actor, body.data.attributes))),
);
