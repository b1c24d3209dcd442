import { processes } from '#shared/api/processes.ts';
import { shownProcess } from '#shared/domain/processes/document.ts';
import { retrieveProcess } from '#shared/domain/processes/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(processes.retrieve, async ({ actor, params }) =>
  ok(await shownProcess(await retrieveProcess(actor, params.id))),
);
