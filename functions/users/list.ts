import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { userDocument } from '#shared/resources/users/document.ts';
import { users } from '#shared/resources/users/operations.ts';
import { listUsers } from '#shared/resources/users/service.ts';

export const handler = operation(users.list, async (call) => listReply(call, await listUsers(call.actor, call.page), userDocument));
