import { machines } from '#shared/api/machines.ts';
import { machineDocument } from '#shared/domain/machines/document.ts';
import { retrieveMachine } from '#shared/domain/machines/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(machines.retrieve, async ({ actor, params }) =>
  ok(machineDocument(await retrieveMachine(actor, params.id))),
);
