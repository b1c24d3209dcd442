import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { relatedMachine } from '#shared/resources/machines/service.ts';
import { shownMachine } from '#shared/resources/machines/shown.ts';
import { processes } from '#shared/resources/processes/operations.ts';
import { retrieveProcess } from '#shared/resources/processes/service.ts';

/** GET /processes/<id>/machine */
export const handler = operation(processes.machine, async ({ actor, params }) =>
  ok(await shownMachine(await relatedMachine(actor, await retrieveProcess(actor, params.id)))),
);
