import { accountRelationship, type ResourceObject, toOne } from '../../jsonapi.ts';
import type { CheckedOutFile } from './service.ts';

/** A license or machine file is kept nowhere: no `links.self` reads it back. */
export type FileObject = Omit<ResourceObject, 'links'>;

export function checkedOutFileDocument(file: CheckedOutFile): FileObject {
  return {
    id: file.id,
    type: `${file.kind}-files`,
    attributes: {
      certificate: file.certificate,
      algorithm: file.algorithm,
      includes: file.includes,
      ttl: file.ttl,
      issued: file.issued,
      expiry: file.expiry,
    },
    relationships: {
      account: accountRelationship(file.accountId),
      environment: toOne(file.accountId, 'environments', file.environmentId),
      license: toOne(file.accountId, 'licenses', file.licenseId),
      ...(file.machineId ? { machine: toOne(file.accountId, 'machines', file.machineId) } : {}),
    },
  };
}
