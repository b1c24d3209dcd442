/**
 * The bearer itself (GET /me): the record the request's credential stands for — a user (an
 * admin too), an environment, a product or a license — shown as a GET of that record would show
 * it to this bearer. Keygen's SDKs ask it first, to learn what their key or token is.
 */
import type { Actor } from '../../auth/actor.ts';
import { ownRecord } from '../../auth/authorize.ts';
import type { RecordType } from '../../store/keys.ts';
import { type RecordOf, toRecord } from '../../store/records.ts';

/** What a credential may stand for (kindOf): nothing else is ever admitted as a bearer. */
const BEARER_TYPES = ['users', 'environments', 'products', 'licenses'] as const;
type BearerType = (typeof BEARER_TYPES)[number];
const isBearerType = (type: RecordType): type is BearerType => (BEARER_TYPES as readonly RecordType[]).includes(type);

export type BearerRecord = RecordOf<BearerType>;

export async function retrieveBearer(actor: Actor): Promise<BearerRecord> {
  const item = await ownRecord(actor);
  const { type } = actor.bearer;
  if (!isBearerType(type)) throw new Error(`A ${type} record stands for no bearer`);
  return toRecord(type, item);
}
