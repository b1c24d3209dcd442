import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { users } from '#shared/resources/users/operations.ts';
import { deleteUser } from '#shared/resources/users/service.ts';

export const handler = operation(users.delete, async ({ actor, params }) => {
  await deleteUser(actor, params.id);
  return noContent();
});
