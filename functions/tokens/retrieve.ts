import { tokens } from '#shared/api/tokens.ts';
import { tokenDocument } from '#shared/domain/tokens/document.ts';
import { retrieveToken } from '#shared/domain/tokens/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(tokens.retrieve, async ({ actor, params }) => ok(tokenDocument(await retrieveToken(actor, params.id))));
