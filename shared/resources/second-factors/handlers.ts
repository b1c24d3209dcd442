/**
 * Handlers of the second factors' operations, one per declaration of operations.ts under the same
 * key. Each export is a factory: the operation's function calls it once to build its Lambda
 * handler (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { created, noContent, ok, okCollection } from '../../http/documents.ts';
import { operation } from '../../http/pipeline.ts';
import { secondFactorDocument } from './document.ts';
import { secondFactors } from './operations.ts';
import { createSecondFactor, deleteSecondFactor, listSecondFactors, retrieveSecondFactor, updateSecondFactor } from './service.ts';

export const list = () =>
  operation(secondFactors.list, async ({ actor, params }) => {
    const { user, factors } = await listSecondFactors(actor, params.id);
    return okCollection(factors.map((factor) => secondFactorDocument(user, factor)));
  });

export const create = () =>
  operation(secondFactors.create, async ({ actor, params, body }) => {
    const { user, factor, uri } = await createSecondFactor(actor, params.id, body.meta.password);
    return created(secondFactorDocument(user, factor, uri));
  });

export const retrieve = () =>
  operation(secondFactors.retrieve, async ({ actor, params }) => {
    const { user, factor } = await retrieveSecondFactor(actor, params.id, params.secondFactor);
    return ok(secondFactorDocument(user, factor));
  });

export const update = () =>
  operation(secondFactors.update, async ({ actor, params, body }) => {
    const { user, factor } = await updateSecondFactor(actor, params.id, params.secondFactor, body.data.attributes.enabled, body.meta.otp);
    return ok(secondFactorDocument(user, factor));
  });

export const remove = () =>
  operation(secondFactors.remove, async ({ actor, params, body }) => {
    await deleteSecondFactor(actor, params.id, params.secondFactor, body?.meta.otp);
    return noContent();
  });
