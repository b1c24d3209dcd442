/**
 * Handlers of the machines' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { componentDocument } from '../components/document.ts';
import { listMachineComponents } from '../components/service.ts';
import { relatedLicense } from '../licenses/service.ts';
import { shownLicense } from '../licenses/shown.ts';
import { machineDocument } from './document.ts';
import { heartbeatDocument, pingMachine, resetMachineHeartbeat } from './heartbeat-actions.ts';
import { machineHeartbeats, machineOwners, machines } from './operations.ts';
import { changeMachineOwner } from './owner.ts';
import { createMachine, deleteMachine, listMachines, listUserMachines, retrieveMachine, updateMachine } from './service.ts';
import { machineDocumentsFor, shownMachine } from './shown.ts';

export const ping = () =>
  operation(machineHeartbeats.ping, async ({ actor, params }) => ok(heartbeatDocument(await pingMachine(actor, params.id))));

/** POST /machines/<id>/actions/ping-heartbeat: the older path of `.../actions/ping`, answering alike. */
export const pingHeartbeat = () =>
  operation(machineHeartbeats.pingHeartbeat, async ({ actor, params }) => ok(heartbeatDocument(await pingMachine(actor, params.id))));

export const reset = () =>
  operation(machineHeartbeats.reset, async ({ actor, params }) => ok(heartbeatDocument(await resetMachineHeartbeat(actor, params.id))));

/** POST /machines/<id>/actions/reset-heartbeat: the older path of `.../actions/reset`, answering alike. */
export const resetHeartbeat = () =>
  operation(machineHeartbeats.resetHeartbeat, async ({ actor, params }) =>
    ok(heartbeatDocument(await resetMachineHeartbeat(actor, params.id))),
  );

export const create = () =>
  operation(machines.create, async ({ actor, body: { data } }) => {
    const { license, owner, components } = data.relationships;
    const nested = components?.data.map((component) => component.attributes);
    const activated = await createMachine(actor, {
      ...data.attributes,
      licenseId: license.data.id,
      ownerId: owner?.data.id,
      components: nested,
    });
    return created(machineDocument(activated.machine, activated.policy));
  });

export const list = () =>
  operation(machines.list, async (call) => {
    const page = await listMachines(call.actor, call.query, call.page);
    return listReply(call, page, await machineDocumentsFor(page.records, page.beside));
  });

export const retrieve = () =>
  operation(machines.retrieve, async ({ actor, params }) => ok(await shownMachine(await retrieveMachine(actor, params.id))));

export const update = () =>
  operation(machines.update, async ({ actor, params, body: { data } }) => {
    const { machine, policy } = await updateMachine(actor, params.id, data.attributes ?? {}, data.id);
    return ok(machineDocument(machine, policy));
  });

export const remove = () =>
  operation(machines.remove, async ({ actor, params }) => {
    await deleteMachine(actor, params.id);
    return noContent();
  });

/** GET /machines/<id>/components */
export const components = () =>
  operation(machines.components, async (call) =>
    listReply(call, await listMachineComponents(call.actor, call.params.id, call.query, call.page), componentDocument),
  );

/** GET /machines/<id>/license */
export const license = () =>
  operation(machines.license, async ({ actor, params }) =>
    ok(await shownLicense(await relatedLicense(actor, await retrieveMachine(actor, params.id)))),
  );

/** GET /users/<id>/machines */
export const ofUser = () =>
  operation(machines.ofUser, async (call) => {
    const page = await listUserMachines(call.actor, call.params.id, call.query, call.page);
    return listReply(call, page, await machineDocumentsFor(page.records, page.beside));
  });

export const changeOwner = () =>
  operation(machineOwners.changeOwner, async ({ actor, params, body }) => {
    const { machine, policy } = await changeMachineOwner(actor, params.id, body.data?.id ?? null);
    return ok(machineDocument(machine, policy));
  });
