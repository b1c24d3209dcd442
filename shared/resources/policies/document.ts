import { accountRelationship, nested, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import { checkInOf } from './check-in.ts';
import { authenticationStrategyOf, expirationOf, type PolicyRecord, transferStrategyOf } from './entity.ts';
import { settingsOf } from './rules.ts';

export function policyDocument(policy: PolicyRecord): ResourceObject {
  const self = resourcePath(policy.accountId, 'policies', policy.id);
  return {
    id: policy.id,
    type: 'policies',
    attributes: {
      name: policy.name,
      componentUniquenessStrategy: policy.componentUniquenessStrategy,
      componentMatchingStrategy: policy.componentMatchingStrategy,
      machineUniquenessStrategy: policy.machineUniquenessStrategy ?? 'UNIQUE_PER_LICENSE',
      requireComponentsScope: policy.requireComponentsScope,
      protected: policy.protected,
      scheme: policy.scheme ?? null,
      usePool: policy.usePool ?? false,
      ...expirationOf(policy),
      ...settingsOf(policy),
      maxUses: policy.maxUses ?? null,
      maxUsers: policy.maxUsers ?? null,
      authenticationStrategy: authenticationStrategyOf(policy),
      transferStrategy: transferStrategyOf(policy),
      ...checkInOf(policy),
      metadata: policy.metadata,
      created: policy.created,
      updated: policy.updated,
    },
    relationships: {
      account: accountRelationship(policy.accountId),
      environment: toOne(policy.accountId, 'environments', policy.environmentId),
      product: toOne(policy.accountId, 'products', policy.productId),
      entitlements: nested(self, 'entitlements'),
      pool: nested(self, 'pool'),
    },
    links: { self },
  };
}
