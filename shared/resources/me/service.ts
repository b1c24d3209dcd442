/**
 * The bearer itself (GET /me): the record the request's credential stands for — a user (an
 * admin too), an environment, a product or a license — shown as a GET of that record would show
 * it to this bearer. Keygen's SDKs ask it first, to learn what their key or token is.
 */
import type { Actor } from '../../auth/actor.ts';
import { ownRecord } from '../../auth/authorize.ts';
import type { BearerType } from '../../auth/bearer.ts';
import { type RecordOf, toRecord } from '../../store/records.ts';

export type BearerRecord = RecordOf<BearerType>;

export async function retrieveBearer(actor: Actor): Promise<BearerRecord> {
  return toRecord(actor.bearer.type, await ownRecord(actor));
}
