import { accountPath, type ResourceObject } from '../../jsonapi.ts';
import type { Account } from './account.ts';

export function accountDocument(account: Account): ResourceObject {
  return {
    id: account.id,
    type: 'accounts',
    attributes: {
      slug: account.slug,
      name: account.name,
      protected: account.protected,
      created: account.created,
      updated: account.updated,
    },
    relationships: {},
    links: { self: accountPath(account.id) },
  };
}
