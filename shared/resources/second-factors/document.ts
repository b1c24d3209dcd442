import { accountRelationship, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { UserRecord } from '../users/entity.ts';
import type { SecondFactor } from './entity.ts';

/**
 * A second factor as shown: never its secret, but in the answer that creates it (`uri`, the
 * otpauth:// URI an authenticator app scans), as Keygen shows it.
 */
export function secondFactorDocument(user: UserRecord, factor: SecondFactor, uri: string | null = null): ResourceObject {
  const userPath = resourcePath(user.accountId, 'users', user.id);
  return {
    id: factor.id,
    type: 'second-factors',
    attributes: { uri, enabled: factor.enabled, created: factor.created, updated: factor.updated },
    relationships: {
      account: accountRelationship(user.accountId),
      environment: toOne(user.accountId, 'environments', user.environmentId),
      user: toOne(user.accountId, 'users', user.id),
    },
    links: { self: `${userPath}/second-factors/${factor.id}` },
  };
}
