import { tokens } from '#shared/api/tokens.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { listTokens } from '#shared/domain/tokens/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(tokens.list, async (call) => listReply(call, await listTokens(call.actor, call.page), tokenDocument));
