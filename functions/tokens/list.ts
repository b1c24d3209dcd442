import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { tokenDocument } from '#shared/resources/tokens/document.ts';
import { tokens } from '#shared/resources/tokens/operations.ts';
import { listTokens } from '#shared/resources/tokens/service.ts';

export const handler = operation(tokens.list, async (call) => listReply(call, await listTokens(call.actor, call.page), tokenDocument));
