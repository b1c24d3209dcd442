import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { environmentDocument } from '#shared/resources/environments/document.ts';
import { environments } from '#shared/resources/environments/operations.ts';
import { listEnvironments } from '#shared/resources/environments/service.ts';

export const handler = operation(environments.list, async (call) =>
  listReply(call, await listEnvironments(call.actor, call.page), environmentDocument),
);
