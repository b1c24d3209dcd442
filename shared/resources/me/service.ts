/**
 * The bearer itself (GET /me): the record the request's credential stands for — a user (an
 * admin too), an environment, a product or a license — shown as a GET of that record would show
 * it to this bearer. Keygen's SDKs ask it first, to learn what their key or token is.
 */
import type { Actor } from '../../auth/actor.ts';
import { ownRecord } from '../../auth/authorize.ts';
import { toRecord } from '../../store/records.ts';
import type { Environment } from '../environments/entity.ts';
import type { LicenseRecord } from '../licenses/entity.ts';
import type { ProductRecord } from '../products/entity.ts';
import type { UserRecord } from '../users/entity.ts';

export type BearerRecord = UserRecord | Environment | ProductRecord | LicenseRecord;

export async function retrieveBearer(actor: Actor): Promise<BearerRecord> {
  return toRecord<BearerRecord>(await ownRecord(actor));
}
