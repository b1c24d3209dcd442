import { machineHeartbeats } from '#shared/api/machine-heartbeats.ts';
import { heartbeatDocument, pingMachine } from '#shared/domain/machines/heartbeat-actions.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
/** POST /machines/<id>/actions/ping-heartbeat: the older path of `.../actions/ping`, answering alike. */

export const handler = operation(machineHeartbeats.pingHeartbeat, async ({ actor, params }) =>
  ok(heartbeatDocument(await pingMachine(actor, params.id))),
);
