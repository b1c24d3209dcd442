import { accountRelationship, type ResourceObject, resourcePath } from '../../jsonapi.ts';
import type { Environment } from './entity.ts';

export function environmentDocument(environment: Environment): ResourceObject {
  return {
    id: environment.id,
    type: 'environments',
    attributes: {
      name: environment.name,
      code: environment.code,
      isolationStrategy: environment.isolationStrategy,
      created: environment.created,
      updated: environment.updated,
    },
    relationships: { account: accountRelationship(environment.accountId) },
    links: { self: resourcePath(environment.accountId, 'environments', environment.id) },
  };
}
