import { environments } from '#shared/api/environments.ts';
import { environmentDocument } from '#shared/domain/environments/document.ts';
import { updateEnvironment } from '#shared/domain/environments/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** The path names the environment by id or code; `data.id`, if sent, must be its id. */
export const handler = operation(environments.update, async ({ actor, params, body: { data } }) =>
  ok(environmentDocument(await updateEnvironment(actor, params.id, data.attributes ?? {}, data.id))),
);
