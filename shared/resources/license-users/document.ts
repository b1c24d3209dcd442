import { accountRelationship, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { LicenseUserRecord } from './entity.ts';

/** An attachment as Keygen shows one (`license-users`): its license and its user. */
export function licenseUserDocument(attachment: LicenseUserRecord): ResourceObject {
  const license = resourcePath(attachment.accountId, 'licenses', attachment.licenseId);
  return {
    id: attachment.id,
    type: 'license-users',
    attributes: { created: attachment.created, updated: attachment.updated },
    relationships: {
      account: accountRelationship(attachment.accountId),
      environment: toOne(attachment.accountId, 'environments', attachment.environmentId),
      license: toOne(attachment.accountId, 'licenses', attachment.licenseId),
      user: toOne(attachment.accountId, 'users', attachment.ownerId),
    },
    links: { related: `${license}/users` },
  };
}
