/**
 * Environments as the rest of the service needs them: found by UUID or by code within an
 * account. A code is held by a uniqueness marker (compared case-insensitively) that points at
 * the environment's record.
 */

import type { AccessPattern, MarkerKind } from '../../store/data-model.ts';
import { type Key, recordKey, uniqueKey } from '../../store/keys.ts';
import type { ReadAhead } from '../../store/read-ahead.ts';
import { getVisibleItem, isUuid, type StoredItem, type StoredRecord, toRecord } from '../../store/records.ts';
import { globalScope } from '../../store/scope.ts';
import { findByUnique } from '../../store/unique.ts';

export type IsolationStrategy = 'ISOLATED' | 'SHARED';

export interface Environment extends StoredRecord {
  type: 'environments';
  name: string;
  code: string;
  isolationStrategy: IsolationStrategy;
}

export const CODE_MARKER = 'ENVIRONMENT_CODE';

/** The uniqueness markers its records hold (docs/data-model.md). */
export const MARKER_KINDS: readonly MarkerKind[] = [{ kind: CODE_MARKER, value: "an environment's code, lower-cased" }];

/** The key an environment is found by: its record (UUID) or its code's marker; undefined if it cannot name one. */
export function environmentKeyFor(accountId: string, idOrCode: string): Key | undefined {
  if (isUuid(idOrCode)) return recordKey(accountId, 'environments', idOrCode.toLowerCase());
  if (idOrCode.length > 255) return undefined;
  return uniqueKey(accountId, CODE_MARKER, idOrCode.toLowerCase());
}

/**
 * The stored item of an environment, by UUID or by code (case-insensitive). Environments are the
 * account's, whatever the request's environment.
 */
export async function findEnvironmentItem(
  accountId: string,
  idOrCode: string,
  ahead?: ReadAhead,
): Promise<StoredItem<Environment> | undefined> {
  const scope = globalScope(accountId, ahead);
  if (!isUuid(idOrCode))
    return idOrCode.length > 255 ? undefined : findByUnique(scope, 'environments', CODE_MARKER, idOrCode.toLowerCase());
  return getVisibleItem(scope, 'environments', idOrCode);
}

export async function findEnvironment(accountId: string, idOrCode: string, ahead?: ReadAhead): Promise<Environment | undefined> {
  const item = await findEnvironmentItem(accountId, idOrCode, ahead);
  return item && toRecord('environments', item);
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 5,
    name: 'Environment by code',
    operation: 'BatchGetItem (read ahead), then GetItem (`findByUnique`)',
    index: 'table',
    key: '`PK = A#<acct>#UNIQUE#ENVIRONMENT_CODE#<code>`, then its `ref`',
    usedBy: 'pipeline (`findEnvironment`)',
    tests: ['store/data-model'],
  },
];
