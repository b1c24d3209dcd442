/**
 * Environments as the rest of the service needs them: found by UUID or by code within an
 * account. A code is held by a uniqueness marker (compared case-insensitively) that points at
 * the environment's record.
 */
import { recordKey, uniqueKey } from '../../store/keys.ts';
import { getItem, isUuid, toRecord, type StoredRecord } from '../../store/records.ts';

export type IsolationStrategy = 'ISOLATED' | 'SHARED';

export interface Environment extends StoredRecord {
  type: 'environments';
  name: string;
  code: string;
  isolationStrategy: IsolationStrategy;
}

export const CODE_MARKER = 'ENVIRONMENT_CODE';

export async function findEnvironment(accountId: string, idOrCode: string): Promise<Environment | undefined> {
  if (isUuid(idOrCode)) {
    const item = await getItem(recordKey(accountId, 'environments', idOrCode.toLowerCase()));
    return item && toRecord<Environment>(item);
  }
  if (idOrCode.length > 255) return undefined;
  const marker = await getItem(uniqueKey(accountId, CODE_MARKER, idOrCode.toLowerCase()));
  if (!marker) return undefined;
  const item = await getItem({ PK: marker.ref as string, SK: marker.SK });
  return item && toRecord<Environment>(item);
}
