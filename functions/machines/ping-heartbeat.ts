import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { heartbeatDocument, pingMachine } from '#shared/resources/machines/heartbeat-actions.ts';
import { machineHeartbeats } from '#shared/resources/machines/operations.ts';
/** POST /machines/<id>/actions/ping-heartbeat: the older path of `.../actions/ping`, answering alike. */

export const handler = operation(machineHeartbeats.pingHeartbeat, async ({ actor, params }) =>
  ok(heartbeatDocument(await pingMachine(actor, params.id))),
);
