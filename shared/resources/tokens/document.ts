import { accountRelationship, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { TokenRecord } from './entity.ts';

/** The token document; `value` is given only in the response that creates the token. */
export function tokenDocument(token: TokenRecord, value?: string): ResourceObject {
  return {
    id: token.id,
    type: 'tokens',
    attributes: {
      kind: token.kind,
      ...(value !== undefined ? { token: value } : {}),
      name: token.name,
      expiry: token.expiry,
      permissions: token.permissions,
      created: token.created,
      updated: token.updated,
    },
    relationships: {
      account: accountRelationship(token.accountId),
      bearer: toOne(token.accountId, token.bearerType, token.bearerId),
      environment: toOne(token.accountId, 'environments', token.environmentId),
    },
    links: { self: resourcePath(token.accountId, 'tokens', token.id) },
  };
}
