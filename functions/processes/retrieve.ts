import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { shownProcess } from '#shared/resources/processes/document.ts';
import { processes } from '#shared/resources/processes/operations.ts';
import { retrieveProcess } from '#shared/resources/processes/service.ts';

export const handler = operation(processes.retrieve, async ({ actor, params }) =>
  ok(await shownProcess(await retrieveProcess(actor, params.id))),
);
