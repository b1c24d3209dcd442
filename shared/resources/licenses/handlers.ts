/**
 * Handlers of the licenses' operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok, okNone } from '../../http/documents.ts';
import { listReply } from '../../http/pagination.ts';
import { operation } from '../../http/pipeline.ts';
import { listLicenseMachines } from '../machines/service.ts';
import { machineDocumentsFor } from '../machines/shown.ts';
import { tokenDocument } from '../tokens/document.ts';
import { userDocument } from '../users/document.ts';
import { checkInLicense, reinstateLicense, renewLicense, revokeLicense, suspendLicense } from './actions.ts';
import { licenseDocument } from './document.ts';
import { licenseActions, licenseOwners, licenses, licenseTransfers, licenseUses, validationReply } from './operations.ts';
import { changeLicenseOwner } from './owner.ts';
import {
  createLicense,
  deleteLicense,
  generateLicenseToken,
  type LicenseAnswer,
  licenseOwner,
  listLicenses,
  listUserLicenses,
  retrieveLicense,
  updateLicense,
} from './service.ts';
import { licenseDocumentsFor, shownLicense } from './shown.ts';
import { changeLicensePolicy } from './transfer.ts';
import { changeUses } from './uses.ts';
import { validateKey as validateByKey, validateLicense } from './validation.ts';

/** A license as a change answers it, shown by its policy as the change read it. */
const answered = ({ license, policy }: LicenseAnswer) => licenseDocument(license, policy);

export const suspend = () =>
  operation(licenseActions.suspend, async ({ actor, params }) => ok(answered(await suspendLicense(actor, params.id))));

export const reinstate = () =>
  operation(licenseActions.reinstate, async ({ actor, params }) => ok(answered(await reinstateLicense(actor, params.id))));

export const renew = () => operation(licenseActions.renew, async ({ actor, params }) => ok(answered(await renewLicense(actor, params.id))));

export const revoke = () =>
  operation(licenseActions.revoke, async ({ actor, params }) => {
    await revokeLicense(actor, params.id);
    return noContent();
  });

export const checkIn = () =>
  operation(licenseActions.checkIn, async ({ actor, params }) => ok(answered(await checkInLicense(actor, params.id))));

export const incrementUsage = () =>
  operation(licenseUses.incrementUsage, async ({ actor, params, body }) =>
    ok(answered(await changeUses(actor, params.id, 'increment', body?.meta?.increment))),
  );

export const decrementUsage = () =>
  operation(licenseUses.decrementUsage, async ({ actor, params, body }) =>
    ok(answered(await changeUses(actor, params.id, 'decrement', body?.meta?.decrement))),
  );

export const resetUsage = () =>
  operation(licenseUses.resetUsage, async ({ actor, params }) => ok(answered(await changeUses(actor, params.id, 'reset'))));

export const create = () =>
  operation(licenses.create, async ({ actor, body: { data } }) => {
    const { policy, owner } = data.relationships;
    return created(answered(await createLicense(actor, { ...data.attributes, policyId: policy.data.id, ownerId: owner?.data.id })));
  });

export const list = () =>
  operation(licenses.list, async (call) => {
    const page = await listLicenses(call.actor, call.query, call.page);
    return listReply(call, page, await licenseDocumentsFor(page.records, page.beside));
  });

export const retrieve = () =>
  operation(licenses.retrieve, async ({ actor, params }) => ok(await shownLicense(await retrieveLicense(actor, params.id))));

export const update = () =>
  operation(licenses.update, async ({ actor, params, body: { data } }) =>
    ok(answered(await updateLicense(actor, params.id, data.attributes ?? {}, data.id))),
  );

export const remove = () =>
  operation(licenses.remove, async ({ actor, params }) => {
    await deleteLicense(actor, params.id);
    return noContent();
  });

/** A license token: 200, like environment tokens; the value is shown only here. */
export const tokensGenerate = () =>
  operation(licenses.tokensGenerate, async ({ actor, params, body }) => {
    const { token, value } = await generateLicenseToken(actor, params.id, body?.data.attributes ?? {});
    return ok(tokenDocument(token, value));
  });

/** POST /licenses/<id>/actions/validate: a bearer validates a license it may see. */
export const validate = () =>
  operation(licenses.validate, async ({ actor, params, body }) =>
    validationReply(await validateLicense(actor, params.id, body?.meta), body?.meta),
  );

/** POST /licenses/actions/validate-key: no bearer; the key is the credential, inside the request's environment. */
export const validateKey = () =>
  operation(licenses.validateKey, async ({ actor, body: { meta } }) => validationReply(await validateByKey(actor, meta), meta));

/** GET /licenses/<id>/machines */
export const machines = () =>
  operation(licenses.machines, async (call) => {
    const page = await listLicenseMachines(call.actor, call.params.id, call.query, call.page);
    return listReply(call, page, await machineDocumentsFor(page.records, page.beside));
  });

/** GET /licenses/<id>/owner: the owner, or data null for a license without one. */
export const owner = () =>
  operation(licenses.owner, async ({ actor, params }) => {
    const owner = await licenseOwner(actor, params.id);
    return owner ? ok(userDocument(owner)) : okNone();
  });

/** GET /users/<id>/licenses */
export const ofUser = () =>
  operation(licenses.ofUser, async (call) => {
    const page = await listUserLicenses(call.actor, call.params.id, call.query, call.page);
    return listReply(call, page, await licenseDocumentsFor(page.records, page.beside));
  });

/** PUT /licenses/<id>/owner, and Keygen's older PUT /licenses/<id>/user: the license with its new owner. */
export const changeOwner = () =>
  operation(licenseOwners.changeOwner, async ({ actor, params, body }) =>
    ok(answered(await changeLicenseOwner(actor, params.id, body.data?.id ?? null))),
  );

export const changeUser = () =>
  operation(licenseOwners.changeUser, async ({ actor, params, body }) =>
    ok(answered(await changeLicenseOwner(actor, params.id, body.data?.id ?? null))),
  );

export const changePolicy = () =>
  operation(licenseTransfers.changePolicy, async ({ actor, params, body }) =>
    ok(answered(await changeLicensePolicy(actor, params.id, body.data.id))),
  );
