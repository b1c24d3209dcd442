import { users } from '#shared/api/users.ts';
import { deleteUser } from '#shared/domain/users/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(users.delete, async ({ actor, params }) => {
  await deleteUser(actor, params.id);
  return noContent();
});
