import { environments } from '#shared/api/environments.ts';
import { listEnvironmentTokens } from '#shared/domain/environments/service.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(environments.tokensList, async (call) =>
  listReply(call, await listEnvironmentTokens(call.actor, call.params.id, call.page), tokenDocument),
);
