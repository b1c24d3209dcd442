import { users } from '#shared/api/users.ts';
import { userDocument } from '#shared/domain/users/document.ts';
import { listUsers } from '#shared/domain/users/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(users.list, async (call) => listReply(call, await listUsers(call.actor, call.page), userDocument));
