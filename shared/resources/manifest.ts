/**
 * Every resource of the API, once: a folder of shared/resources/ by name, with the policies that
 * judge its records. What is derived from this list and the folders it names: the route table
 * (each folder's operations.ts, shared/routes.ts) and with it the CDK stack, the local stack and
 * the OpenAPI description; the policy registry (shared/auth/policies/index.ts).
 *
 * A resource is added by writing its folder (entity, policy, operations, service, document) and
 * its handlers under functions/, and listing it here.
 */
import type { Policy } from '../auth/policies/policy.ts';
import { accountPolicy } from './accounts/policy.ts';
import { componentPolicy } from './components/policy.ts';
import { entitlementPolicy, licenseEntitlementPolicy, policyEntitlementPolicy } from './entitlements/policy.ts';
import { environmentPolicy } from './environments/policy.ts';
import { licensePolicy } from './licenses/policy.ts';
import { machinePolicy } from './machines/policy.ts';
import { policyPolicy } from './policies/policy.ts';
import { processPolicy } from './processes/policy.ts';
import { productPolicy } from './products/policy.ts';
import { tokenPolicy } from './tokens/policy.ts';
import { userPolicy } from './users/policy.ts';
import { webhookEndpointPolicy } from './webhook-endpoints/policy.ts';
import { webhookEventPolicy } from './webhook-events/policy.ts';

export interface ResourceDefinition {
  /** The policies of the JSON:API types the resource's operations act on, by type. */
  policies?: Readonly<Record<string, Policy>>;
}

export const manifest = {
  /** The API's own description (no account, no credential). */
  reference: {},
  accounts: { policies: { accounts: accountPolicy } },
  users: { policies: { users: userPolicy } },
  tokens: { policies: { tokens: tokenPolicy } },
  /** The bearer itself: whom the request's credential stands for (Keygen's SDKs start with it). */
  me: {},
  passwords: {},
  environments: { policies: { environments: environmentPolicy } },
  products: { policies: { products: productPolicy } },
  policies: { policies: { policies: policyPolicy } },
  licenses: { policies: { licenses: licensePolicy } },
  /** License and machine files: check-outs of licenses and machines. */
  'check-out': {},
  machines: { policies: { machines: machinePolicy } },
  components: { policies: { components: componentPolicy } },
  processes: { policies: { processes: processPolicy } },
  entitlements: {
    policies: {
      entitlements: entitlementPolicy,
      'policy-entitlements': policyEntitlementPolicy,
      'license-entitlements': licenseEntitlementPolicy,
    },
  },
  'webhook-endpoints': { policies: { 'webhook-endpoints': webhookEndpointPolicy } },
  'webhook-events': { policies: { 'webhook-events': webhookEventPolicy } },
} as const satisfies Record<string, ResourceDefinition>;
