import { machines } from '#shared/api/machines.ts';
import { retrieveMachine } from '#shared/domain/machines/service.ts';
import { shownMachine } from '#shared/domain/machines/shown.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(machines.retrieve, async ({ actor, params }) =>
  ok(await shownMachine(await retrieveMachine(actor, params.id))),
);
