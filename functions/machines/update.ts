import { machines } from '#shared/api/machines.ts';
import { updateMachine } from '#shared/domain/machines/service.ts';
import { shownMachine } from '#shared/domain/machines/shown.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(machines.update, async ({ actor, params, body: { data } }) =>
  ok(await shownMachine(await updateMachine(actor, params.id, data.attributes ?? {}, data.id))),
);
