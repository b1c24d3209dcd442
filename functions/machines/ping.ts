import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { heartbeatDocument, pingMachine } from '#shared/resources/machines/heartbeat-actions.ts';
import { machineHeartbeats } from '#shared/resources/machines/operations.ts';

export const handler = operation(machineHeartbeats.ping, async ({ actor, params }) =>
  ok(heartbeatDocument(await pingMachine(actor, params.id))),
);
