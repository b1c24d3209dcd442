import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { environmentDocument } from '#shared/resources/environments/document.ts';
import { environments } from '#shared/resources/environments/operations.ts';
import { updateEnvironment } from '#shared/resources/environments/service.ts';

/** The path names the environment by id or code; `data.id`, if sent, must be its id. */
export const handler = operation(environments.update, async ({ actor, params, body: { data } }) =>
  ok(environmentDocument(await updateEnvironment(actor, params.id, data.attributes ?? {}, data.id))),
);
