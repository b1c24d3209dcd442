/**
 * The record each type stores, in one place: what a typed read of a type returns
 * (`RecordOf<'licenses'>` is a LicenseRecord). Each record interface is declared by its
 * resource's entity.ts; this map only names them.
 */
import type { ComponentRecord } from '../resources/components/entity.ts';
import type { EntitlementRecord } from '../resources/entitlements/entity.ts';
import type { Environment } from '../resources/environments/entity.ts';
import type { LicenseRecord } from '../resources/licenses/entity.ts';
import type { MachineRecord } from '../resources/machines/entity.ts';
import type { PolicyRecord } from '../resources/policies/entity.ts';
import type { ProcessRecord } from '../resources/processes/entity.ts';
import type { ProductRecord } from '../resources/products/entity.ts';
import type { TokenRecord } from '../resources/tokens/entity.ts';
import type { UserRecord } from '../resources/users/entity.ts';
import type { WebhookEndpointRecord } from '../resources/webhook-endpoints/entity.ts';
import type { WebhookEventRecord } from '../resources/webhook-events/entity.ts';
import type { RecordType } from './keys.ts';
import type { StoredRecord } from './records.ts';

interface RecordTypes {
  users: UserRecord;
  tokens: TokenRecord;
  environments: Environment;
  'webhook-endpoints': WebhookEndpointRecord;
  'webhook-events': WebhookEventRecord;
  products: ProductRecord;
  policies: PolicyRecord;
  licenses: LicenseRecord;
  machines: MachineRecord;
  components: ComponentRecord;
  processes: ProcessRecord;
  entitlements: EntitlementRecord;
}

/** The record of `type` (`webhook-kinds` names no record of its own: any record). */
export type RecordOf<K extends RecordType> = K extends keyof RecordTypes ? RecordTypes[K] : StoredRecord;
