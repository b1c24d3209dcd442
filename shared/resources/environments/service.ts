/**
 * Environments: segments of an account. They are account-level records (never inside an
 * environment themselves) managed by global admins; their codes are unique per account,
 * case-insensitively. Deleting one removes it and its tokens at once; the environment's removal
 * sends the purge of everything else it holds (through the outbox relay: shared/outbox/entries.ts).
 */

import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction } from '../../auth/authorize.ts';
import type { Action } from '../../auth/policies/index.ts';
import type { ActionContext } from '../../auth/policies/policy.ts';
import { Conflict, conflict, ruleBroken } from '../../errors.ts';
import { emitEvent } from '../../events/emit.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { purgeMarkerKey } from '../../store/keys.ts';
import { listCollection, type PageRequest } from '../../store/paging.ts';
import { isUuid, type StoredItem, toRecord } from '../../store/records.ts';
import { environmentScope, globalScope } from '../../store/scope.ts';
import { Transaction, type UniqueClaim } from '../../store/transaction.ts';
import { attributePointer, maxLength, newRecord, now, oneOf } from '../rules.ts';
import { generateTokenFor, type TokenRequest } from '../tokens/generate.ts';
import { listBearerTokens } from '../tokens/service.ts';
import { environmentDocument } from './document.ts';
import { CODE_MARKER, type Environment, findEnvironmentItem, type IsolationStrategy } from './entity.ts';

const STRATEGIES: readonly IsolationStrategy[] = ['ISOLATED', 'SHARED'];
const RESERVED_CODES = ['actions', 'action'];
/** Codes travel in headers, query strings and paths: a conservative alphabet keeps them safe in all three. */
const CODE_ALPHABET = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The message the purge worker receives (the first one from the outbox relay: shared/outbox/entries.ts). */
export interface PurgeMessage {
  accountId: string;
  environmentId: string;
}

function codeRules(code: string) {
  maxLength('code', code, 255);
  if (isUuid(code) || !CODE_ALPHABET.test(code)) {
    const detail = 'code must be letters, digits, ".", "_" or "-", and must not look like a UUID';
    throw ruleBroken('CODE_INVALID', detail, attributePointer('code'));
  }
  if (RESERVED_CODES.includes(code.toLowerCase())) {
    throw ruleBroken('CODE_NOT_ALLOWED', `code '${code}' is reserved`, attributePointer('code'));
  }
}

const codeClaim = (code: string): UniqueClaim => ({
  kind: CODE_MARKER,
  value: code.toLowerCase(),
  taken: ruleBroken('CODE_TAKEN', 'code has already been taken', attributePointer('code')),
});

export interface NewEnvironment {
  name: string;
  code: string;
  /** ISOLATED (the default) or SHARED; anything else is 422. */
  isolationStrategy?: string;
}

/** An environment's isolation strategy is chosen once, at its creation. */
export interface EnvironmentChanges {
  name?: string;
  code?: string;
}

export async function createEnvironment(actor: Actor, input: NewEnvironment): Promise<Environment> {
  await authorizeAction(actor, 'environments', 'create');
  maxLength('name', input.name, 255);
  codeRules(input.code);
  // An environment is account-level: it lives in no environment.
  const environment: Environment = {
    ...newRecord('environments', { accountId: actor.account.id, environmentId: null }),
    name: input.name,
    code: input.code,
    isolationStrategy: oneOf('isolationStrategy', input.isolationStrategy, STRATEGIES) ?? 'ISOLATED',
  };
  const tx = new Transaction();
  tx.create(environment, { unique: [codeClaim(environment.code)] });
  await emitEvent(tx, globalScope(actor.account.id), 'environment.created', environmentDocument(environment));
  await tx.commit();
  return environment;
}

/**
 * An environment by UUID or code on which the bearer may do `action`. Environments are read from
 * the account, whatever the request's environment; a bearer who may not manage environments is
 * refused before the lookup, so a refusal tells nothing of which environments exist.
 */
async function environmentItem(
  actor: Actor,
  idOrCode: string,
  action: Action<'environments'>,
  context?: ActionContext,
): Promise<StoredItem<Environment>> {
  await authorizeAction(actor, 'environments', action);
  const item = await findEnvironmentItem(actor.account.id, idOrCode);
  if (!item) throw new RecordNotFound('environments', idOrCode);
  return authorize(actor, 'environments', item, action, context);
}

export async function retrieveEnvironment(actor: Actor, idOrCode: string): Promise<Environment> {
  return toRecord('environments', await environmentItem(actor, idOrCode, 'read'));
}

export async function listEnvironments(actor: Actor, page: PageRequest) {
  await authorizeAction(actor, 'environments', 'list');
  return listCollection(globalScope(actor.account.id), { type: 'environments' }, page);
}

/**
 * `namedId`: the id the update's document gives (`data.id`), if any. The path may name the
 * environment by its code, so only the environment found tells whether that id is its own
 * (docs/rules.md §1.2: any other is 409 ID_MISMATCH).
 */
export async function updateEnvironment(
  actor: Actor,
  idOrCode: string,
  changes: EnvironmentChanges,
  namedId?: string,
): Promise<Environment> {
  const item = await environmentItem(actor, idOrCode, 'update');
  const current = toRecord('environments', item);
  if (namedId !== undefined && namedId.toLowerCase() !== current.id) {
    throw new Conflict(`data.id does not match the id of the environment (${current.id})`, 'ID_MISMATCH', { pointer: '/data/id' });
  }
  const written: Partial<Environment> = { updated: now() };
  const claim: UniqueClaim[] = [];
  const release: { kind: string; value: string }[] = [];
  if (changes.name !== undefined) {
    maxLength('name', changes.name, 255);
    written.name = changes.name;
  }
  if (changes.code !== undefined) {
    codeRules(changes.code);
    written.code = changes.code;
    if (changes.code.toLowerCase() !== current.code.toLowerCase()) {
      claim.push(codeClaim(changes.code));
      release.push({ kind: CODE_MARKER, value: current.code.toLowerCase() });
    }
  }
  const tx = new Transaction();
  const next = toRecord(
    'environments',
    tx.update(item, written, {
      missing: new RecordNotFound('environments', idOrCode),
      conflict: conflict('The environment changed while this request was made; retry it'),
      claim,
      release,
    }),
  );
  await emitEvent(tx, globalScope(actor.account.id), 'environment.updated', environmentDocument(next));
  await tx.commit();
  return next;
}

/**
 * Deletes the environment and its code at once; its tokens and every other credential of
 * the environment stop working with it (authentication needs the environment). The rest of
 * its records are removed by the purge worker, whose first message the outbox relay sends from
 * the environment's removal; a marker records the pending purge so an operator can find it
 * should the message ever be lost.
 */
export async function deleteEnvironment(actor: Actor, idOrCode: string): Promise<void> {
  const item = await environmentItem(actor, idOrCode, 'delete');
  const message: PurgeMessage = { accountId: actor.account.id, environmentId: item.id };
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('environments', idOrCode));
  tx.put({ ...purgeMarkerKey(message.accountId, message.environmentId), ...message, requested: now(), completed: 0 });
  await emitEvent(tx, globalScope(actor.account.id), 'environment.deleted', environmentDocument(toRecord('environments', item)));
  await tx.commit();
}

/** POST /environments/<id>/tokens, made from inside that environment (docs/rules.md §15.2). */
export async function generateEnvironmentToken(actor: Actor, idOrCode: string, request: TokenRequest) {
  const item = await environmentItem(actor, idOrCode, 'tokens.generate', { changes: { permissions: request.permissions } });
  return generateTokenFor(actor, item, 'environment-token', request);
}

export async function listEnvironmentTokens(actor: Actor, idOrCode: string, page: PageRequest) {
  const environment = toRecord('environments', await environmentItem(actor, idOrCode, 'tokens.list'));
  const scope = environmentScope(actor.account.id, environment);
  return listBearerTokens(scope, { type: 'environments', id: environment.id }, page);
}
