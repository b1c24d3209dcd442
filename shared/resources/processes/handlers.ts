/**
 * Handlers of the processes' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { relatedLicense } from '../licenses/service.ts';
import { shownLicense } from '../licenses/shown.ts';
import { relatedMachine } from '../machines/service.ts';
import { shownMachine } from '../machines/shown.ts';
import { productDocument } from '../products/document.ts';
import { relatedProduct } from '../products/service.ts';
import { processDocument, processDocumentsFor, shownProcess } from './document.ts';
import { processes } from './operations.ts';
import {
  createProcess,
  deleteProcess,
  listMachineProcesses,
  listProcesses,
  pingProcess,
  retrieveProcess,
  updateProcess,
} from './service.ts';

export const create = () =>
  operation(processes.create, async ({ actor, body: { data } }) => {
    const { process, policy } = await createProcess(actor, { ...data.attributes, machineId: data.relationships.machine.data.id });
    return created(processDocument(process, policy));
  });

export const list = () =>
  operation(processes.list, async (call) => {
    const page = await listProcesses(call.actor, call.query, call.page);
    return listReply(call, page, await processDocumentsFor(page.records));
  });

export const retrieve = () =>
  operation(processes.retrieve, async ({ actor, params }) => ok(await shownProcess(await retrieveProcess(actor, params.id))));

export const remove = () =>
  operation(processes.remove, async ({ actor, params }) => {
    await deleteProcess(actor, params.id);
    return noContent();
  });

/** POST /processes/<id>/actions/ping */
export const ping = () =>
  operation(processes.ping, async ({ actor, params }) => {
    const { process, policy } = await pingProcess(actor, params.id);
    return ok(processDocument(process, policy));
  });

/** GET /processes/<id>/machine */
export const machine = () =>
  operation(processes.machine, async ({ actor, params }) =>
    ok(await shownMachine(await relatedMachine(actor, await retrieveProcess(actor, params.id)))),
  );

/** GET /processes/<id>/license */
export const license = () =>
  operation(processes.license, async ({ actor, params }) =>
    ok(await shownLicense(await relatedLicense(actor, await retrieveProcess(actor, params.id)))),
  );

/** GET /processes/<id>/product */
export const product = () =>
  operation(processes.product, async ({ actor, params }) =>
    ok(productDocument(await relatedProduct(actor, await retrieveProcess(actor, params.id)))),
  );

/** GET /machines/<id>/processes */
export const ofMachine = () =>
  operation(processes.ofMachine, async (call) => {
    const page = await listMachineProcesses(call.actor, call.params.id, call.query, call.page);
    return listReply(call, page, await processDocumentsFor(page.records));
  });

/** PATCH /processes/<id>: its metadata. */
export const update = () =>
  operation(processes.update, async ({ actor, params, body: { data } }) => {
    const { process, policy } = await updateProcess(actor, params.id, data.attributes ?? {});
    return ok(processDocument(process, policy));
  });
