import { environments } from '#shared/api/environments.ts';
import { environmentDocument } from '#shared/domain/environments/document.ts';
import { listEnvironments } from '#shared/domain/environments/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(environments.list, async (call) =>
  listReply(call, await listEnvironments(call.actor, call.page), environmentDocument),
);
