import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { machines } from '#shared/resources/machines/operations.ts';
import { retrieveMachine } from '#shared/resources/machines/service.ts';
import { shownMachine } from '#shared/resources/machines/shown.ts';

export const handler = operation(machines.retrieve, async ({ actor, params }) =>
  ok(await shownMachine(await retrieveMachine(actor, params.id))),
);
