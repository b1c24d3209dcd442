import { accountRelationship, nested, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { UserRecord } from './entity.ts';

export function userDocument(user: UserRecord): ResourceObject {
  const self = resourcePath(user.accountId, 'users', user.id);
  const fullName = [user.firstName, user.lastName].filter(Boolean).join(' ') || null;
  return {
    id: user.id,
    type: 'users',
    attributes: {
      fullName,
      // A name set to null is stored as absent: shown as null, never left out.
      firstName: user.firstName ?? null,
      lastName: user.lastName ?? null,
      email: user.email,
      status: user.status,
      role: user.role,
      metadata: user.metadata,
      created: user.created,
      updated: user.updated,
    },
    relationships: {
      account: accountRelationship(user.accountId),
      environment: toOne(user.accountId, 'environments', user.environmentId),
      products: nested(self, 'products'),
      licenses: nested(self, 'licenses'),
      machines: nested(self, 'machines'),
      tokens: nested(self, 'tokens'),
    },
    links: { self },
  };
}
