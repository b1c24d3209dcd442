import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { environments } from '#shared/resources/environments/operations.ts';
import { listEnvironmentTokens } from '#shared/resources/environments/service.ts';
import { tokenDocument } from '#shared/resources/tokens/document.ts';

export const handler = operation(environments.tokensList, async (call) =>
  listReply(call, await listEnvironmentTokens(call.actor, call.params.id, call.page), tokenDocument),
);
