import { accountRelationship, nested, nestedOne, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import { checkInOf, nextCheckInOf } from '../policies/check-in.ts';
import { heartbeatOf } from '../policies/heartbeat.ts';
import { limitsOf } from '../policies/limits.ts';
import { type LicenseRecord, licenseStatus, maxUsersOf, maxUsesOf } from './entity.ts';

/**
 * A license as shown: what its policy decides (its limits, whether it needs heartbeats) is its
 * policy's as stored now, unless the license overrides it (`policy`: the record or item;
 * undefined, a policy gone: the defaults), as Keygen shows a license.
 */
export function licenseDocument(license: LicenseRecord, policy: object | undefined): ResourceObject {
  const self = resourcePath(license.accountId, 'licenses', license.id);
  const limits = limitsOf(policy);
  const checkIn = checkInOf(policy);
  return {
    id: license.id,
    type: 'licenses',
    attributes: {
      key: license.key,
      scheme: license.scheme ?? null,
      name: license.name ?? null,
      status: licenseStatus(license),
      suspended: license.suspended,
      protected: license.protected,
      expiry: license.expiry ?? null,
      uses: license.uses ?? 0,
      maxUses: maxUsesOf(license, policy),
      maxUsers: maxUsersOf(license, policy),
      maxMachines: limits.maxMachines,
      maxCores: limits.maxCores,
      maxProcesses: limits.maxProcesses,
      floating: limits.floating,
      strict: limits.strict,
      requireHeartbeat: heartbeatOf(policy).requireHeartbeat,
      requireCheckIn: checkIn.requireCheckIn,
      lastCheckIn: license.lastCheckIn ?? null,
      nextCheckIn: nextCheckInOf(license.lastCheckIn, checkIn),
      lastCheckOut: license.lastCheckOut ?? null,
      lastValidated: license.lastValidated ?? null,
      metadata: license.metadata,
      created: license.created,
      updated: license.updated,
    },
    relationships: {
      account: accountRelationship(license.accountId),
      environment: toOne(license.accountId, 'environments', license.environmentId),
      product: nestedOne(self, 'product', 'products', license.productId),
      policy: nestedOne(self, 'policy', 'policies', license.policyId),
      owner: nestedOne(self, 'owner', 'users', license.ownerId),
      users: nested(self, 'users'),
      machines: nested(self, 'machines'),
      entitlements: nested(self, 'entitlements'),
    },
    links: { self },
  };
}
