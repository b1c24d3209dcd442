import { machineHeartbeats } from '#shared/api/machine-heartbeats.ts';
import { heartbeatDocument, pingMachine } from '#shared/domain/machines/heartbeat-actions.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(machineHeartbeats.ping, async ({ actor, params }) =>
  ok(heartbeatDocument(await pingMachine(actor, params.id))),
);
