import { environments } from '#shared/api/environments.ts';
import { environmentDocument } from '#shared/domain/environments/document.ts';
import { createEnvironment } from '#shared/domain/environments/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(environments.create, async ({ actor, body }) =>
  created(environmentDocument(await createEnvironment(actor, body.data.attributes))),
);
