import { processes } from '#shared/api/processes.ts';
import { relatedMachine } from '#shared/domain/machines/service.ts';
import { shownMachine } from '#shared/domain/machines/shown.ts';
import { retrieveProcess } from '#shared/domain/processes/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /processes/<id>/machine */
export const handler = operation(processes.machine, async ({ actor, params }) =>
  ok(await shownMachine(await relatedMachine(actor, await retrieveProcess(actor, params.id)))),
);
