/**
 * Licenses, under a policy (who may do what, and who sees a key: shared/resources/licenses/policy.ts).
 */

import { randomBytes } from 'node:crypto';
import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction, present, restriction } from '../../auth/authorize.ts';
import { signingKeyOf } from '../../auth/signing-key.ts';
import { ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { licenseNamed, requireNamedId } from '../../licensing/aliases.ts';
import { relatedItem, requireAncestry } from '../../licensing/graph.ts';
import { type Filter, type FilterValues, filteredList } from '../../licensing/lists.ts';
import { removeWithDescendants } from '../../licensing/removal.ts';
import { parentsOf } from '../../licensing/slots.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { recordKey } from '../../store/keys.ts';
import { type Page, type PageRequest, pageOf } from '../../store/paging.ts';
import { getItem, getRecordItem, getVisibleItem, recordKeyOf, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction, type UniqueClaim } from '../../store/transaction.ts';
import { updateAndAnnounce } from '../changes.ts';
import { requireNotPooled, withPooledKey } from '../keys/pool.ts';
import { attachedLicenses } from '../license-users/collections.ts';
import { policiesBeside, policyOf } from '../policies/beside.ts';
import { checkInOf } from '../policies/check-in.ts';
import { expirationOf, type PolicyRecord } from '../policies/entity.ts';
import { overridableLimitRule } from '../policies/rules.ts';
import { attributePointer, type Metadata, maxLength, metadataRule, newRecord, now } from '../rules.ts';
import { generateTokenFor, type TokenRequest } from '../tokens/generate.ts';
import type { UserRecord } from '../users/entity.ts';
import { retrieveUser } from '../users/service.ts';
import { licenseDocument } from './document.ts';
import { KEY_MAX, LICENSE_KEY_MARKER, type LicenseRecord, licenseKeyValue } from './entity.ts';
import { expiryAtCreation } from './expiry.ts';
import { DATASET_MAX_BYTES, defaultDataset, type LicenseFacts, renderTemplate, signedKey } from './signed-key.ts';

/** What an update may change (null clears name and expiry). */
export interface LicenseChanges {
  name?: string | null;
  protected?: boolean;
  suspended?: boolean;
  /** ISO 8601; stored in UTC. */
  expiry?: string | null;
  /** The license's own limit of uses; null: its policy's. */
  maxUses?: number | null;
  /** The license's own limit of users; null: its policy's. */
  maxUsers?: number | null;
  /** ISO 8601, not in the future; stored in UTC. */
  lastCheckIn?: string | null;
  metadata?: Metadata;
}

export interface NewLicense extends LicenseChanges {
  /** Generated when not given; under ED25519_SIGN, the template of the signed key's dataset. */
  key?: string;
  policyId: string;
  ownerId?: string;
}

/** The attributes checked by the model's rules, the expiry restated in UTC. */
function checked<T extends LicenseChanges>(attributes: T): T {
  maxLength('name', attributes.name, 255);
  metadataRule(attributes.metadata);
  overridableLimitRule('maxUses', attributes.maxUses);
  overridableLimitRule('maxUsers', attributes.maxUsers);
  const times = {
    ...(attributes.expiry != null && { expiry: utc('expiry', attributes.expiry, 'EXPIRY_INVALID') }),
    ...(attributes.lastCheckIn != null && { lastCheckIn: utc('lastCheckIn', attributes.lastCheckIn, 'LAST_CHECK_IN_INVALID') }),
  };
  if (times.lastCheckIn !== undefined && Date.parse(times.lastCheckIn) > Date.now()) {
    throw ruleBroken('LAST_CHECK_IN_INVALID', 'lastCheckIn must not be in the future', attributePointer('lastCheckIn'));
  }
  return { ...attributes, ...times };
}

/** An ISO 8601 time given for `attribute`, restated in UTC (else 422 `code`). */
function utc(attribute: string, value: string, code: string): string {
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw ruleBroken(code, `${attribute} must be an ISO 8601 time`, attributePointer(attribute));
  return new Date(at).toISOString();
}

/**
 * A license's key, held by its marker; the marker carries the license's policy and owner (an owner
 * change rewrites it: owner.ts), so validation reads them with the license in one BatchGetItem.
 */
const keyClaim = (license: Pick<LicenseRecord, 'key' | 'policyId' | 'ownerId'>): UniqueClaim => ({
  kind: LICENSE_KEY_MARKER,
  value: licenseKeyValue(license.key),
  taken: ruleBroken('KEY_TAKEN', 'key has already been taken', attributePointer('key')),
  carries: { policyId: license.policyId, ownerId: license.ownerId },
});

/** A generated key: 128 random bits as four dash-separated groups of hex. */
function newKey(): string {
  const hex = randomBytes(16).toString('hex').toUpperCase();
  return [0, 8, 16, 24].map((start) => hex.slice(start, start + 8)).join('-');
}

/** A signed key (shared/resources/licenses/signed-key.ts): its dataset from the template given, else the default one. */
async function signedLicenseKey(actor: Actor, template: string | undefined, facts: LicenseFacts): Promise<string> {
  maxLength('key', template, DATASET_MAX_BYTES);
  const dataset = template === undefined ? defaultDataset(facts) : renderTemplate(template, facts);
  if (Buffer.byteLength(dataset, 'utf8') > DATASET_MAX_BYTES) {
    throw ruleBroken(
      'KEY_TOO_LONG',
      `key is too long once its placeholders are filled in (maximum is ${DATASET_MAX_BYTES} bytes)`,
      attributePointer('key'),
    );
  }
  return signedKey(dataset, await signingKeyOf(actor.account));
}

/** The facts of a license a signed key's dataset may tell; `duration` is its policy's. */
function factsOf(license: Omit<LicenseRecord, 'key'>, owner: StoredItem<UserRecord> | undefined, duration: number | null): LicenseFacts {
  return {
    id: license.id,
    account: license.accountId,
    product: license.productId,
    policy: license.policyId,
    user: owner ? { id: owner.id, email: owner.email } : null,
    created: license.created,
    expiry: license.expiry,
    duration,
  };
}

/** A license as a change left it, with its policy as read (the answer shows the license by it). */
export interface LicenseAnswer {
  license: LicenseRecord;
  policy: object | undefined;
}

export async function createLicense(actor: Actor, input: NewLicense): Promise<LicenseAnswer> {
  await authorizeAction(actor, 'licenses', 'create');
  const { key, ...attributes } = checked(input);
  const policy = toRecord('policies', await relatedItem(actor, 'policies', attributes.policyId, 'policy'));
  const scheme = policy.scheme ?? null;
  if (scheme === null) maxLength('key', key, KEY_MAX);
  const owner = attributes.ownerId !== undefined ? await relatedItem(actor, 'users', attributes.ownerId, 'owner') : undefined;
  const expiration = expirationOf(policy);
  const timestamp = now();
  const unsigned: Omit<LicenseRecord, 'key'> = {
    ...newRecord('licenses', actor.scope, timestamp),
    policyId: policy.id,
    productId: policy.productId,
    ownerId: owner?.id ?? null,
    scheme,
    name: attributes.name ?? null,
    protected: attributes.protected ?? policy.protected,
    suspended: attributes.suspended ?? false,
    expiry: expiryAtCreation(attributes.expiry, expiration, timestamp),
    ...(attributes.maxUses != null ? { maxUses: attributes.maxUses } : {}),
    ...(attributes.maxUsers != null ? { maxUsers: attributes.maxUsers } : {}),
    // As Keygen: a license under a policy that requires check-ins has checked in when it is made.
    ...(attributes.lastCheckIn != null || checkInOf(policy).requireCheckIn ? { lastCheckIn: attributes.lastCheckIn ?? timestamp } : {}),
    metadata: attributes.metadata ?? {},
  };
  // Under a policy with a pool, a license given no key takes one from the pool (docs/rules.md §18.9).
  if (key === undefined && policy.usePool) {
    return withPooledKey(actor.scope, policy, '/data/relationships/policy', (pooled, taken) =>
      commitLicense(actor, { ...unsigned, key: pooled.key }, policy, owner, (tx) => tx.delete(pooled, taken, { key: pooled.key })),
    );
  }
  const license: LicenseRecord = {
    ...unsigned,
    key: scheme === 'ED25519_SIGN' ? await signedLicenseKey(actor, key, factsOf(unsigned, owner, expiration.duration)) : (key ?? newKey()),
  };
  // A key given by hand is never one a pool holds (which a license would take again later).
  const given = key !== undefined && scheme === null;
  return commitLicense(actor, license, policy, owner, given ? (tx) => requireNotPooled(tx, license.accountId, license.key) : undefined);
}

/** Writes a new license with its event (and `also`: the key it takes from a pool), its policy, product and owner still there. */
async function commitLicense(
  actor: Actor,
  license: LicenseRecord,
  policy: PolicyRecord,
  owner: StoredItem<UserRecord> | undefined,
  also?: (tx: Transaction) => void,
): Promise<LicenseAnswer> {
  const tx = new Transaction();
  // First, so that a pooled key taken meanwhile tells so before its value's claim does.
  also?.(tx);
  tx.create(license, {
    parents: parentsOf('licenses', { policy: policy.id, product: policy.productId, owner: license.ownerId }),
    unique: [keyClaim(license)],
  });
  // The policy and its product must still exist: a license is never created under a removal.
  const policyGone = ruleBroken('POLICY_NOT_FOUND', 'policy was deleted', '/data/relationships/policy');
  tx.requireExists(recordKeyOf(policy), policyGone);
  requireAncestry(tx, license, ['products'], policyGone);
  if (owner)
    tx.requireExists({ PK: owner.PK, SK: owner.SK }, ruleBroken('OWNER_NOT_FOUND', 'owner was deleted', '/data/relationships/owner'));
  await emitEvent(tx, originOf(license, actor.scope), 'license.created', licenseDocument(license, policy));
  await tx.commit();
  return { license: present(actor, 'licenses', license), policy };
}

/** `id`: the license's id or its key (docs/rules.md §11.2), as for its update and delete. */
export async function retrieveLicense(actor: Actor, id: string): Promise<LicenseRecord> {
  return present(actor, 'licenses', toRecord('licenses', await authorize(actor, 'licenses', await licenseNamed(actor, id), 'read')));
}

/** `namedId`: the update's `data.id`, if sent; the path may name the license by its key. */
export async function updateLicense(actor: Actor, id: string, changes: LicenseChanges, namedId?: string): Promise<LicenseAnswer> {
  const item = await authorize(actor, 'licenses', await licenseNamed(actor, id), 'update');
  requireNamedId(item, namedId);
  const written = { ...checked(changes), updated: now() };
  const policy = await policyOf(item);
  const document = (license: LicenseRecord) => licenseDocument(license, policy);
  const updated = await updateAndAnnounce('licenses', item, written, 'license.updated', document, actor.scope);
  return { license: present(actor, 'licenses', updated), policy };
}

export async function deleteLicense(actor: Actor, id: string): Promise<void> {
  await removeLicense(actor, await authorize(actor, 'licenses', await licenseNamed(actor, id), 'delete'), 'license.deleted');
}

/** Removes a license with its machines, components and tokens, announced as `event` (a delete, or a revocation). */
export async function removeLicense(
  actor: Actor,
  read: StoredItem<LicenseRecord>,
  event: 'license.deleted' | 'license.revoked',
): Promise<void> {
  let item = read;
  for (let attempt = 1; ; attempt++) {
    const removed = toRecord('licenses', item);
    const policy = await policyOf(removed);
    try {
      await removeWithDescendants(item, (tx) => emitEvent(tx, originOf(removed, actor.scope), event, licenseDocument(removed, policy)));
      return;
    } catch (error) {
      // Moved to another policy meanwhile, the license is removed as it is now; gone, it is not found.
      const again =
        error instanceof RecordNotFound && attempt < REMOVAL_ATTEMPTS
          ? await getRecordItem(item.accountId, 'licenses', item.id)
          : undefined;
      if (!again) throw error;
      item = again;
    }
  }
}

/** How often a license's removal reads it again when it changed meanwhile. */
const REMOVAL_ATTEMPTS = 3;

/** Filters in order of selectivity: a user's licenses, a policy's, a product's. */
const FILTERS: readonly Filter<'licenses'>[] = [
  { params: ['owner', 'user'], parent: 'owner' },
  { params: ['policy'], parent: 'policy' },
  { params: ['product'], parent: 'product' },
];

export async function listLicenses(
  actor: Actor,
  filters: FilterValues,
  page: PageRequest,
  forced: Record<string, string> = {},
): Promise<Page<LicenseRecord>> {
  await authorizeAction(actor, 'licenses', 'list');
  const { id, ...conditions } = restriction(actor, 'licenses');
  const listed =
    id !== undefined
      ? await ownLicense(actor, id, forced, page)
      : await filteredList(actor.scope, 'licenses', FILTERS, filters, [conditions, forced], page, {
          beside: policiesBeside(actor.scope.accountId),
          // A user's licenses are those it owns and those it is attached to, but for `?owner=` (docs/rules.md §18.11).
          ...(filters.owner === undefined
            ? { pointers: { owner: (userId: string) => attachedLicenses(actor.scope.accountId, userId) } }
            : {}),
        });
  return { ...listed, records: listed.records.map((license) => present(actor, 'licenses', license)) };
}

/** A bearer restricted to one license (the license itself) lists just that one, if it meets the conditions. */
async function ownLicense(actor: Actor, id: string, forced: Record<string, string>, page: PageRequest): Promise<Page<LicenseRecord>> {
  const item = await getVisibleItem(actor.scope, 'licenses', id);
  const own = item ? [toRecord('licenses', item)] : [];
  return pageOf(
    own.filter((license) =>
      Object.entries(forced).every(([name, value]) => (license as unknown as Record<string, unknown>)[name] === value),
    ),
    page,
  );
}

/** GET /users/<id>/licenses: the licenses a user owns or is attached to, under the same filters as every list of licenses. */
export async function listUserLicenses(actor: Actor, userId: string, filters: FilterValues, page: PageRequest) {
  const user = await retrieveUser(actor, userId);
  return listLicenses(actor, filters, page, { ownerId: user.id });
}

/** POST /licenses/<id>/tokens: a license token, for administrators and the license's product. */
export async function generateLicenseToken(actor: Actor, id: string, request: TokenRequest) {
  const item = await authorize(actor, 'licenses', id, 'tokens.generate', { changes: { permissions: request.permissions } });
  return generateTokenFor(actor, item, 'activation-token', request);
}

/** The license a record belongs to, seen by the rules of licenses. */
export const relatedLicense = (actor: Actor, record: { licenseId: string }) => retrieveLicense(actor, record.licenseId);

/**
 * GET /licenses/<id>/owner: the owner seen by the rules of users, or null when there is none: an
 * owner deleted is none, even before its deletion has cleared the license's link (shared/resources/users/owners.ts).
 */
export async function licenseOwner(actor: Actor, id: string) {
  const license = await retrieveLicense(actor, id);
  if (!license.ownerId) return null;
  try {
    return await retrieveUser(actor, license.ownerId);
  } catch (error) {
    if (error instanceof RecordNotFound && !(await getItem(recordKey(license.accountId, 'users', license.ownerId)))) return null;
    throw error;
  }
}
