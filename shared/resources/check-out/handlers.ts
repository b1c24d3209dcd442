/**
 * Handlers of the check-outs' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { operation } from '../../http/pipeline.ts';
import { checkOut, checkOutParameters, fileDocumentReply, fileReply } from './operations.ts';
import { checkOutLicense, checkOutMachine } from './service.ts';

/** POST /licenses/<id>/actions/check-out: a license file, in a `license-files` document. */
export const license = () =>
  operation(checkOut.license, async ({ actor, params, query, body }) =>
    fileDocumentReply(await checkOutLicense(actor, params.id, checkOutParameters(query, body))),
  );

/** GET /licenses/<id>/actions/check-out: the license file itself, as `<id>.lic`. */
export const licenseFile = () =>
  operation(checkOut.licenseFile, async ({ actor, params, query }) =>
    fileReply(await checkOutLicense(actor, params.id, checkOutParameters(query))),
  );

/** POST /machines/<id>/actions/check-out: a machine file, in a `machine-files` document. */
export const machine = () =>
  operation(checkOut.machine, async ({ actor, params, query, body }) =>
    fileDocumentReply(await checkOutMachine(actor, params.id, checkOutParameters(query, body))),
  );

/** GET /machines/<id>/actions/check-out: the machine file itself, as `<id>.lic`. */
export const machineFile = () =>
  operation(checkOut.machineFile, async ({ actor, params, query }) =>
    fileReply(await checkOutMachine(actor, params.id, checkOutParameters(query))),
  );
