/**
 * Every resource of the API, once: a folder of shared/resources/ by name, with the policies that
 * judge its records. What is derived from this list and the folders it names:
 *
 *   - the route table (each folder's operations.ts, shared/routes.ts) and with it the CDK stack,
 *     the local stack and the OpenAPI description;
 *   - the policy registry (shared/auth/policies/index.ts);
 *   - the permissions, what each kind of bearer holds and what can be done inside an environment
 *     (shared/auth/permissions.ts): the policies' permissions and grants;
 *   - the JSON:API resource types (`ResourceType`, shared/http/declaration.ts): the policies'
 *     types and the `documents` an entry names;
 *   - the resource objects' schemas in the description (each folder's schema.ts,
 *     shared/reference/resources.ts);
 *   - the kinds of webhook event (shared/events/kinds.ts);
 *   - the parent collections of the licensing graph's records, each a GSI (shared/licensing/slots.ts);
 *   - the record each type stores (`RecordOf`, shared/store/record-types.ts): an entry's `stores`.
 *
 * A resource is added by writing its folder (entity, policy, operations, handlers, service,
 * document, events, schema) and listing it here. Outside them, a new record type's key prefix is
 * written in the key layout (`PREFIXES`, shared/store/keys.ts: the store loads nothing above it,
 * so it cannot read this list), and a new permission's name in the `Permission` type
 * (shared/auth/permissions.ts: the policies' types read it, so it cannot be derived from them);
 * a test checks each against this list.
 */

import type { Policy } from '../auth/policies/policy.ts';
import type { StoredRecord } from '../store/records.ts';
import { ACCOUNT_EVENTS } from './accounts/events.ts';
import { accountPolicy } from './accounts/policy.ts';
import type { ComponentRecord } from './components/entity.ts';
import { COMPONENT_PARENTS } from './components/entity.ts';
import { COMPONENT_EVENTS } from './components/events.ts';
import { componentPolicy } from './components/policy.ts';
import type { EntitlementRecord } from './entitlements/entity.ts';
import { ENTITLEMENT_EVENTS } from './entitlements/events.ts';
import { entitlementPolicy, licenseEntitlementPolicy, policyEntitlementPolicy } from './entitlements/policy.ts';
import type { Environment } from './environments/entity.ts';
import { ENVIRONMENT_EVENTS } from './environments/events.ts';
import { environmentPolicy } from './environments/policy.ts';
import type { KeyRecord } from './keys/entity.ts';
import { KEY_PARENTS } from './keys/entity.ts';
import { KEY_EVENTS } from './keys/events.ts';
import { keyPolicy } from './keys/policy.ts';
import type { LicenseUserRecord } from './license-users/entity.ts';
import { LICENSE_USER_PARENTS } from './license-users/entity.ts';
import { LICENSE_USER_EVENTS } from './license-users/events.ts';
import { licenseUserPolicy } from './license-users/policy.ts';
import type { LicenseRecord } from './licenses/entity.ts';
import { LICENSE_PARENTS } from './licenses/entity.ts';
import { LICENSE_EVENTS } from './licenses/events.ts';
import { licensePolicy } from './licenses/policy.ts';
import type { MachineRecord } from './machines/entity.ts';
import { MACHINE_PARENTS } from './machines/entity.ts';
import { MACHINE_EVENTS } from './machines/events.ts';
import { machinePolicy } from './machines/policy.ts';
import type { PolicyRecord } from './policies/entity.ts';
import { POLICY_PARENTS } from './policies/entity.ts';
import { POLICY_EVENTS } from './policies/events.ts';
import { policyPolicy } from './policies/policy.ts';
import type { ProcessRecord } from './processes/entity.ts';
import { PROCESS_PARENTS } from './processes/entity.ts';
import { PROCESS_EVENTS } from './processes/events.ts';
import { processPolicy } from './processes/policy.ts';
import type { ProductRecord } from './products/entity.ts';
import { PRODUCT_EVENTS } from './products/events.ts';
import { productPolicy } from './products/policy.ts';
import { SECOND_FACTOR_EVENTS } from './second-factors/events.ts';
import type { TokenRecord } from './tokens/entity.ts';
import { TOKEN_EVENTS } from './tokens/events.ts';
import { tokenPolicy } from './tokens/policy.ts';
import type { UserRecord } from './users/entity.ts';
import { USER_EVENTS } from './users/events.ts';
import { userPolicy } from './users/policy.ts';
import type { WebhookEndpointRecord } from './webhook-endpoints/entity.ts';
import { WEBHOOK_ENDPOINT_EVENTS } from './webhook-endpoints/events.ts';
import { webhookEndpointPolicy } from './webhook-endpoints/policy.ts';
import type { WebhookEventRecord } from './webhook-events/entity.ts';
import { webhookEventPolicy } from './webhook-events/policy.ts';

export interface ResourceDefinition {
  /** The policies of the JSON:API types the resource's operations act on, by type. */
  policies?: Readonly<Record<string, Policy>>;
  /** The kinds of webhook event its operations emit (`<singular type>.<what happened>`). */
  events?: readonly string[];
  /**
   * The records its records hang on, by the name it gives each (`owner: 'users'`): the parent
   * collections it is in, each a GSI in the order given (the first GSI2: shared/licensing/slots.ts).
   */
  parents?: Readonly<Record<string, string>>;
  /** The JSON:API types its operations answer with that no policy judges (files made on request, kept nowhere). */
  documents?: readonly string[];
  /** The record each type it keeps stores, for the type system (`RecordOf`, shared/store/record-types.ts). */
  stores?: Readonly<Record<string, Stored<StoredRecord>>>;
}

/** A record type named for the type system alone: nothing of it exists when the code runs. */
export interface Stored<R extends StoredRecord> {
  readonly record?: R;
}

export const stored = <R extends StoredRecord>(): Stored<R> => ({});

export const manifest = {
  /** The API's own description (no account, no credential). */
  reference: {},
  accounts: { events: ACCOUNT_EVENTS, policies: { accounts: accountPolicy } },
  users: { events: USER_EVENTS, policies: { users: userPolicy }, stores: { users: stored<UserRecord>() } },
  /** A user's second factor, kept on the user's record: the users policy judges it. */
  'second-factors': { events: SECOND_FACTOR_EVENTS, documents: ['second-factors'] },
  tokens: { events: TOKEN_EVENTS, policies: { tokens: tokenPolicy }, stores: { tokens: stored<TokenRecord>() } },
  /** The bearer itself: whom the request's credential stands for (Keygen's SDKs start with it). */
  me: {},
  passwords: {},
  environments: {
    events: ENVIRONMENT_EVENTS,
    policies: { environments: environmentPolicy },
    stores: { environments: stored<Environment>() },
  },
  products: { events: PRODUCT_EVENTS, policies: { products: productPolicy }, stores: { products: stored<ProductRecord>() } },
  policies: {
    parents: POLICY_PARENTS,
    events: POLICY_EVENTS,
    policies: { policies: policyPolicy },
    stores: { policies: stored<PolicyRecord>() },
  },
  /** A policy's pool of keys, each a license's key to be. */
  keys: { parents: KEY_PARENTS, events: KEY_EVENTS, policies: { keys: keyPolicy }, stores: { keys: stored<KeyRecord>() } },
  licenses: {
    parents: LICENSE_PARENTS,
    events: LICENSE_EVENTS,
    policies: { licenses: licensePolicy },
    stores: { licenses: stored<LicenseRecord>() },
  },
  /** The users attached to a license besides its owner: each an attachment, judged on the license. */
  'license-users': {
    parents: LICENSE_USER_PARENTS,
    events: LICENSE_USER_EVENTS,
    policies: { 'license-users': licenseUserPolicy },
    stores: { 'license-users': stored<LicenseUserRecord>() },
  },
  /** License and machine files: check-outs of licenses and machines. */
  'check-out': { documents: ['license-files', 'machine-files'] },
  machines: {
    parents: MACHINE_PARENTS,
    events: MACHINE_EVENTS,
    policies: { machines: machinePolicy },
    stores: { machines: stored<MachineRecord>() },
  },
  components: {
    parents: COMPONENT_PARENTS,
    events: COMPONENT_EVENTS,
    policies: { components: componentPolicy },
    stores: { components: stored<ComponentRecord>() },
  },
  processes: {
    parents: PROCESS_PARENTS,
    events: PROCESS_EVENTS,
    policies: { processes: processPolicy },
    stores: { processes: stored<ProcessRecord>() },
  },
  entitlements: {
    events: ENTITLEMENT_EVENTS,
    policies: {
      entitlements: entitlementPolicy,
      'policy-entitlements': policyEntitlementPolicy,
      'license-entitlements': licenseEntitlementPolicy,
    },
    stores: { entitlements: stored<EntitlementRecord>() },
  },
  'webhook-endpoints': {
    events: WEBHOOK_ENDPOINT_EVENTS,
    policies: { 'webhook-endpoints': webhookEndpointPolicy },
    stores: { 'webhook-endpoints': stored<WebhookEndpointRecord>() },
  },
  'webhook-events': { policies: { 'webhook-events': webhookEventPolicy }, stores: { 'webhook-events': stored<WebhookEventRecord>() } },
} as const satisfies Record<string, ResourceDefinition>;
