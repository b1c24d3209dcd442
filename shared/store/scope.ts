/**
 * Where a request stands: its account, the environment new records are born in, and the
 * environments whose records it may read. Every read and write of the store goes through a
 * Scope, so environment isolation is enforced here once rather than in each handler.
 */
import type { RecordType } from './keys.ts';
import type { ReadAhead } from './read-ahead.ts';

export interface Scope {
  accountId: string;
  /** The environment of the request; null is the global environment. */
  environmentId: string | null;
  /** Environments whose records are visible: ISOLATED [env], SHARED [env, global], global [global]. */
  readable: readonly (string | null)[];
  /** A request's items read ahead of its handler (see read-ahead.ts); absent outside requests. */
  readAhead?: ReadAhead;
}

export const globalScope = (accountId: string, readAhead?: ReadAhead): Scope => ({
  accountId,
  environmentId: null,
  readable: [null],
  readAhead,
});

export function environmentScope(
  accountId: string,
  environment: { id: string; isolationStrategy: 'ISOLATED' | 'SHARED' },
  readAhead?: ReadAhead,
): Scope {
  return {
    accountId,
    environmentId: environment.id,
    readable: environment.isolationStrategy === 'SHARED' ? [environment.id, null] : [environment.id],
    readAhead,
  };
}

/**
 * Records a SHARED environment never shows from the global environment: credentials (tokens, and
 * the pools' keys, each a license's key to be) and the webhook plumbing that carries every change
 * (docs/rules.md §5.2, §7.1). Only licensing records and users are shared, read-only.
 */
const ENVIRONMENT_PRIVATE: ReadonlySet<RecordType> = new Set(['tokens', 'keys', 'webhook-endpoints', 'webhook-events']);

/** The environments whose records of `type` the scope may read. */
export const readableOf = (scope: Scope, type: RecordType): readonly (string | null)[] =>
  ENVIRONMENT_PRIVATE.has(type) ? [scope.environmentId] : scope.readable;

export const canRead = (scope: Scope, type: RecordType, environmentId: string | null) => readableOf(scope, type).includes(environmentId);

/** Records are written only from inside their own environment (global ones read-only from SHARED). */
export const canWrite = (scope: Scope, environmentId: string | null) => scope.environmentId === environmentId;
