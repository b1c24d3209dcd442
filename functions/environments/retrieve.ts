import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { environmentDocument } from '#shared/resources/environments/document.ts';
import { environments } from '#shared/resources/environments/operations.ts';
import { retrieveEnvironment } from '#shared/resources/environments/service.ts';

export const handler = operation(environments.retrieve, async ({ actor, params }) =>
  ok(environmentDocument(await retrieveEnvironment(actor, params.id))),
);
