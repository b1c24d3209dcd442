/**
 * Environments as the rest of the service needs them: found by UUID or by code within an
 * account. A code is held by a uniqueness marker (compared case-insensitively) that points at
 * the environment's record.
 */
import { recordKey, uniqueKey } from '../../store/keys.ts';
import { getItem, isUuid, toRecord, type Item, type StoredRecord } from '../../store/records.ts';

export type IsolationStrategy = 'ISOLATED' | 'SHARED';

export interface Environment extends StoredRecord {
  type: 'environments';
  name: string;
  code: string;
  isolationStrategy: IsolationStrategy;
}

export const CODE_MARKER = 'ENVIRONMENT_CODE';

/** The stored item of an environment, by UUID or by code (case-insensitive). */
export async function findEnvironmentItem(accountId: string, idOrCode: string): Promise<Item | undefined> {
  if (isUuid(idOrCode)) return getItem(recordKey(accountId, 'environments', idOrCode.toLowerCase()));
  if (idOrCode.length > 255) return undefined;
  const marker = await getItem(uniqueKey(accountId, CODE_MARKER, idOrCode.toLowerCase()));
  return marker && getItem({ PK: marker.ref as string, SK: marker.SK });
}

export async function findEnvironment(accountId: string, idOrCode: string): Promise<Environment | undefined> {
  const item = await findEnvironmentItem(accountId, idOrCode);
  return item && toRecord<Environment>(item);
}
