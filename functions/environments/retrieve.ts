import { environments } from '#shared/api/environments.ts';
import { environmentDocument } from '#shared/domain/environments/document.ts';
import { retrieveEnvironment } from '#shared/domain/environments/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(environments.retrieve, async ({ actor, params }) =>
  ok(environmentDocument(await retrieveEnvironment(actor, params.id))),
);
