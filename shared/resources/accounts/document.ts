import { publishedPublicKey } from '../../auth/signing-key.ts';
import { accountPath, type ResourceObject } from '../../jsonapi.ts';
import type { Account } from './entity.ts';

/**
 * The account as the API shows it; `meta.keys.ed25519` is the public key its answers, license
 * files and signed keys verify with (Keygen's encoding: base64 of the key's hex), shown once the
 * account has its signing key (`signingKeyOf` gives it one on first use).
 */
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
    ...(account.signingKey ? { meta: { keys: { ed25519: publishedPublicKey(account.signingKey) } } } : {}),
  };
}
