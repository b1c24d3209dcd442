/**
 * Licenses, under a policy (who may do what, and who sees a key: shared/auth/policies/licensing.ts).
 */
import { emitEvent, originOf } from '../../events/emit.ts';
import { updateAndAnnounce } from '../changes.ts';
import { licenseDocument } from './document.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { authorize, authorizeAction, present, restriction } from '../../auth/authorize.ts';
import type { Actor } from '../../auth/actor.ts';
import { nonBlank, parseBody, relationship, resourceDocument, updateDocument } from '../../http/body.ts';
import { ruleBroken } from '../../errors.ts';
import type { Query } from '../../http/query.ts';
import { pageOf, type Page, type PageRequest } from '../../store/paging.ts';
import { getVisibleItem, recordKeyOf, toRecord } from '../../store/records.ts';
import { Transaction, type UniqueClaim } from '../../store/transaction.ts';
import { attributePointer, maxLength, metadataRule, metadataSchema, now } from '../rules.ts';
import { retrieveUser } from '../users/service.ts';
import { relatedItem, relationshipId, removeWithDescendants } from '../licensing/graph.ts';
import { SLOTS } from '../licensing/slots.ts';
import { filteredList, type Filter } from '../licensing/lists.ts';
import { generateTokenFor, type TokenRequest } from '../tokens/generate.ts';
import type { PolicyRecord } from '../policies/policy.ts';
import { LICENSE_KEY_MARKER, licenseKeyValue, type LicenseRecord } from './license.ts';

const metadata = metadataSchema();
const KEY_MAX = 4096;

const mutable = {
  name: z.nullish(z.string()),
  protected: z.optional(z.boolean()),
  suspended: z.optional(z.boolean()),
  expiry: z.nullish(z.string()),
  metadata: z.optional(metadata),
};

const createBody = resourceDocument(
  'licenses',
  { key: z.optional(nonBlank()), ...mutable },
  { policy: relationship('policies'), owner: z.optional(relationship('users')) },
);
const updateBody = updateDocument('licenses', mutable);

type Mutable = NonNullable<z.infer<typeof updateBody>['data']['attributes']>;

function rules(input: Mutable): Record<string, unknown> {
  maxLength('name', input.name, 255);
  metadataRule(input.metadata);
  const checked: Record<string, unknown> = { ...input };
  if (input.expiry != null) {
    const at = Date.parse(input.expiry);
    if (Number.isNaN(at)) throw ruleBroken('EXPIRY_INVALID', 'expiry must be an ISO 8601 time', attributePointer('expiry'));
    checked.expiry = new Date(at).toISOString();
  }
  return checked;
}

const keyClaim = (key: string): UniqueClaim => ({
  kind: LICENSE_KEY_MARKER,
  value: licenseKeyValue(key),
  taken: ruleBroken('KEY_TAKEN', 'key has already been taken', attributePointer('key')),
});

/** A generated key: 128 random bits as four dash-separated groups of hex. */
const newKey = () => randomBytes(16).toString('hex').toUpperCase().match(/.{8}/g)!.join('-');

export async function createLicense(ctx: Actor): Promise<LicenseRecord> {
  await authorizeAction(ctx, 'licenses', 'create');
  const { data } = parseBody(ctx.body, createBody);
  const checked = rules(data.attributes);
  if (data.attributes.key !== undefined) maxLength('key', data.attributes.key, KEY_MAX);
  const policy = toRecord<PolicyRecord>(await relatedItem(ctx, 'policies', relationshipId(data, 'policy')!, 'policy'));
  const ownerId = relationshipId(data, 'owner');
  const owner = ownerId ? await relatedItem(ctx, 'users', ownerId, 'owner') : undefined;
  const timestamp = now();
  const license: LicenseRecord = {
    type: 'licenses',
    id: randomUUID(),
    accountId: ctx.scope.accountId,
    environmentId: ctx.scope.environmentId,
    created: timestamp,
    updated: timestamp,
    policyId: policy.id,
    productId: policy.productId,
    ownerId: (owner?.id as string | undefined) ?? null,
    key: data.attributes.key ?? newKey(),
    name: data.attributes.name ?? null,
    protected: data.attributes.protected ?? policy.protected,
    suspended: data.attributes.suspended ?? false,
    expiry: (checked.expiry as string | null | undefined) ?? null,
    metadata: data.attributes.metadata ?? {},
  };
  const tx = new Transaction();
  tx.create(license, {
    parents: [{ type: 'policies', id: policy.id }, { type: 'products', id: policy.productId }, owner ? { type: 'users', id: owner.id as string } : undefined],
    unique: [keyClaim(license.key)],
  });
  tx.requireExists(recordKeyOf(policy), ruleBroken('POLICY_NOT_FOUND', 'policy was deleted', '/data/relationships/policy'));
  if (owner) tx.requireExists({ PK: owner.PK, SK: owner.SK }, ruleBroken('OWNER_NOT_FOUND', 'owner was deleted', '/data/relationships/owner'));
  await emitEvent(tx, originOf(license, ctx.scope), 'license.created', licenseDocument(license));
  await tx.commit();
  return present(ctx, 'licenses', license);
}

export async function retrieveLicense(ctx: Actor, id: string): Promise<LicenseRecord> {
  return present(ctx, 'licenses', toRecord<LicenseRecord>(await authorize(ctx, 'licenses', id, 'read')));
}

export async function updateLicense(ctx: Actor, id: string): Promise<LicenseRecord> {
  const item = await authorize(ctx, 'licenses', id, 'update');
  const { attributes = {} } = parseBody(ctx.body, updateBody, id).data;
  const changes = { ...rules(attributes), updated: now() };
  return present(ctx, 'licenses', await updateAndAnnounce<LicenseRecord>(item, changes, 'license.updated', licenseDocument, ctx.scope));
}

export async function deleteLicense(ctx: Actor, id: string): Promise<void> {
  const item = await authorize(ctx, 'licenses', id, 'delete');
  const removed = toRecord<LicenseRecord>(item);
  await removeWithDescendants(item, (tx) => emitEvent(tx, originOf(removed, ctx.scope), 'license.deleted', licenseDocument(removed)));
}

/** Filters in order of selectivity: a user's licenses, a policy's, a product's. */
const FILTERS: readonly Filter[] = [
  { params: ['owner', 'user'], attribute: 'ownerId', parent: 'users', slot: SLOTS.licenses.owner },
  { params: ['policy'], attribute: 'policyId', parent: 'policies', slot: SLOTS.licenses.policy },
  { params: ['product'], attribute: 'productId', parent: 'products', slot: SLOTS.licenses.product },
];

export async function listLicenses(ctx: Actor, page: PageRequest, forced: Record<string, string> = {}, query: Query = ctx.query): Promise<Page<LicenseRecord>> {
  await authorizeAction(ctx, 'licenses', 'list');
  const { id, ...conditions } = restriction(ctx, 'licenses');
  const listed = id !== undefined ? await ownLicense(ctx, id, forced, page) : await filteredList<LicenseRecord>(ctx.scope, 'licenses', FILTERS, query, [conditions, forced], page);
  return { ...listed, records: listed.records.map((license) => present(ctx, 'licenses', license)) };
}

/** A bearer restricted to one license (the license itself) lists just that one, if it meets the conditions. */
async function ownLicense(ctx: Actor, id: string, forced: Record<string, string>, page: PageRequest): Promise<Page<LicenseRecord>> {
  const item = await getVisibleItem(ctx.scope, 'licenses', id);
  const own = item ? [toRecord<LicenseRecord>(item)] : [];
  return pageOf(own.filter((license) => Object.entries(forced).every(([name, value]) => (license as unknown as Record<string, unknown>)[name] === value)), page);
}

/** GET /users/<id>/licenses. */
export async function listUserLicenses(ctx: Actor, userId: string, page: PageRequest) {
  const user = await retrieveUser(ctx, userId);
  return listLicenses(ctx, page, { ownerId: user.id });
}

/** POST /licenses/<id>/tokens: a license token, for administrators and the license's product. */
export async function generateLicenseToken(ctx: Actor, id: string, request: TokenRequest) {
  const item = await authorize(ctx, 'licenses', id, 'tokens.generate');
  return generateTokenFor(ctx, item, 'activation-token', request);
}

/** The license a record belongs to, seen by the rules of licenses. */
export const relatedLicense = (ctx: Actor, record: { licenseId: string }) => retrieveLicense(ctx, record.licenseId);

/** GET /licenses/<id>/owner: the owner seen by the rules of users, or null when there is none. */
export async function licenseOwner(ctx: Actor, id: string) {
  const license = await retrieveLicense(ctx, id);
  return license.ownerId ? retrieveUser(ctx, license.ownerId) : null;
}
