import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { tokenDocument } from '#shared/resources/tokens/document.ts';
import { tokens } from '#shared/resources/tokens/operations.ts';
import { retrieveToken } from '#shared/resources/tokens/service.ts';

export const handler = operation(tokens.retrieve, async ({ actor, params }) => ok(tokenDocument(await retrieveToken(actor, params.id))));
