import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { environmentDocument } from '#shared/resources/environments/document.ts';
import { environments } from '#shared/resources/environments/operations.ts';
import { createEnvironment } from '#shared/resources/environments/service.ts';

export const handler = operation(environments.create, async ({ actor, body }) =>
  created(environmentDocument(await createEnvironment(actor, body.data.attributes))),
);
