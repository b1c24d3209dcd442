/**
 * The only place DynamoDB keys are built. Every record lives in its own partition under its
 * account; collections (lists) are GSI partitions that always name the account and the
 * environment, so a query can never reach across either. See docs/data-model.md.
 */

/** Record types and the upper-case prefix their keys carry. */
export const PREFIXES = {
  users: 'USER',
  tokens: 'TOKEN',
  environments: 'ENVIRONMENT',
  'webhook-endpoints': 'WEBHOOK_ENDPOINT',
  'webhook-events': 'WEBHOOK_EVENT',
  /**
   * Not a record type: a pseudo-parent whose id is an event kind (`user.created`), so that
   * webhook events of one kind form a parent collection and `events[]=<kind>` is a key lookup.
   */
  'webhook-kinds': 'WEBHOOK_KIND',
  products: 'PRODUCT',
  policies: 'POLICY',
  keys: 'KEY',
  licenses: 'LICENSE',
  'license-users': 'LICENSE_USER',
  machines: 'MACHINE',
  components: 'COMPONENT',
  processes: 'PROCESS',
  entitlements: 'ENTITLEMENT',
} as const;

export type RecordType = keyof typeof PREFIXES;

export interface Key {
  PK: string;
  SK: string;
}

/** The SK of every single-item partition. */
const ITEM = '#';
/** Stands for the global (nil) environment in collection keys. */
const GLOBAL = '-';

export const accountKey = (accountId: string): Key => ({ PK: `ACCOUNT#${accountId}`, SK: ITEM });

/** Slugs are globally unique; the marker holds the account id. */
export const accountSlugKey = (slug: string): Key => ({ PK: `ACCOUNT_SLUG#${slug.toLowerCase()}`, SK: ITEM });

export const recordKey = (accountId: string, type: RecordType, id: string): Key => ({
  PK: `A#${accountId}#${PREFIXES[type]}#${id}`,
  SK: ITEM,
});

/** The id of the record whose key's PK this is (`A#<account>#<TYPE>#<id>`). */
export const idOfRecordKey = (pk: string): string => pk.slice(pk.lastIndexOf('#') + 1);

/** A uniqueness marker: exists while some record holds `value` for `kind` in the account. */
export const uniqueKey = (accountId: string, kind: string, value: string): Key => ({
  PK: `A#${accountId}#UNIQUE#${kind}#${value}`,
  SK: ITEM,
});

/**
 * Where authentication finds a token: by the SHA-256 digest of its value alone (a value is 256
 * random bits), so the pipeline reads it in the same BatchGetItem as the account.
 */
export const tokenLookupKey = (digest: string): Key => ({ PK: `TOKEN_DIGEST#${digest}`, SK: ITEM });

/**
 * A bearer's token register: one entry per token (SK `TOKEN#<id>`) and a head (SK `#`) whose
 * serial every new token bumps, so revoking "all of a bearer's tokens" reads them strongly
 * consistently and fails if one was generated meanwhile.
 */
const bearerTokensPartition = (accountId: string, type: RecordType, id: string) => `A#${accountId}#${PREFIXES[type]}#${id}#TOKENS`;

export const bearerTokensHeadKey = (accountId: string, type: RecordType, id: string): Key => ({
  PK: bearerTokensPartition(accountId, type, id),
  SK: ITEM,
});

export const bearerTokenEntryKey = (accountId: string, type: RecordType, id: string, tokenId: string): Key => ({
  PK: bearerTokensPartition(accountId, type, id),
  SK: `TOKEN#${tokenId}`,
});

/**
 * An environment's webhook subscriptions: one item holding every endpoint of the environment
 * (one attribute each: url, enabled, subscriptions), so a change finds who to tell with the
 * same BatchGetItem that authenticates it instead of a Query.
 */
export const subscriptionsKey = (accountId: string, environmentId: string | null): Key => ({
  PK: `A#${accountId}#E#${environmentId ?? GLOBAL}#WEBHOOK_SUBSCRIPTIONS`,
  SK: ITEM,
});

/** What may hold entitlements: a policy (for every license under it) or one license. */
export type EntitlementHolder = 'policies' | 'licenses';

/**
 * The entitlements attached to a policy or to a license: one item per holder, one attribute per
 * attachment (`entitlement#<entitlementId>`), so a license's effective set is one BatchGetItem of
 * two items and an attach of up to 100 is one conditional write.
 */
export const entitlementSetKey = (accountId: string, holder: EntitlementHolder, holderId: string): Key => ({
  PK: `A#${accountId}#${PREFIXES[holder]}#${holderId}#ENTITLEMENTS`,
  SK: ITEM,
});

/**
 * Where an entitlement is attached: one item per holder (SK `POLICY#<id>` or `LICENSE#<id>`) in
 * the entitlement's own partition, so removing the entitlement finds every attachment with one
 * strongly consistent Query.
 */
export const entitlementHoldersPartition = (accountId: string, entitlementId: string) =>
  `A#${accountId}#${PREFIXES.entitlements}#${entitlementId}#HOLDERS`;

export const entitlementHolderKey = (accountId: string, entitlementId: string, holder: EntitlementHolder, holderId: string): Key => ({
  PK: entitlementHoldersPartition(accountId, entitlementId),
  SK: `${PREFIXES[holder]}#${holderId}`,
});

/** The count of a collection, kept in the same transactions as its members. */
export const counterKey = (collectionPartition: string): Key => ({ PK: `COUNT#${collectionPartition}`, SK: ITEM });

/**
 * The machines of a license in every environment together (SK `#`: `n`, what maxMachines
 * bounds), and, with `environmentId`, the share of them activated in that environment when it is
 * not the license's own (SK `E#<environmentId>`), which the environment's purge gives back.
 */
const licenseMachineCountPartition = (accountId: string, licenseId: string) =>
  `A#${accountId}#${PREFIXES.licenses}#${licenseId}#MACHINE_COUNT`;

export const licenseMachineCountKey = (accountId: string, licenseId: string, environmentId: string | null = null): Key => ({
  PK: licenseMachineCountPartition(accountId, licenseId),
  SK: environmentId === null ? ITEM : `E#${environmentId}`,
});

/**
 * The cores of a license's machines in every environment together (SK `#`: `n`, what maxCores
 * bounds), with shares per environment as for the machines (licenseMachineCountKey).
 */
export const licenseCoreCountKey = (accountId: string, licenseId: string, environmentId: string | null = null): Key => ({
  PK: `A#${accountId}#${PREFIXES.licenses}#${licenseId}#CORE_COUNT`,
  SK: environmentId === null ? ITEM : `E#${environmentId}`,
});

/**
 * The live processes of a machine (`machineProcessCountKey`) or of a license across its machines
 * (`licenseProcessCountKey`), what maxProcesses bounds under PER_MACHINE or PER_LICENSE: SK `#`
 * counts them all (`n`), with shares per environment as for the machines (licenseMachineCountKey).
 */
export const machineProcessCountKey = (accountId: string, machineId: string, environmentId: string | null = null): Key => ({
  PK: `A#${accountId}#${PREFIXES.machines}#${machineId}#PROCESS_COUNT`,
  SK: environmentId === null ? ITEM : `E#${environmentId}`,
});

export const licenseProcessCountKey = (accountId: string, licenseId: string, environmentId: string | null = null): Key => ({
  PK: `A#${accountId}#${PREFIXES.licenses}#${licenseId}#PROCESS_COUNT`,
  SK: environmentId === null ? ITEM : `E#${environmentId}`,
});

/**
 * The holders of a fingerprint within one scope (docs/rules.md §21.1, §23.2): `kind` is `MACHINE` or
 * `COMPONENT`, `value` the SHA-256 of `<level>:<scope id>:<fingerprint>` (level: license, policy,
 * product or account). SK `#` (`n`) counts every holder, what a create under the strategy naming
 * that level requires to be 0; with `environmentId`, SK `E#<environmentId>` is the share of them
 * inside an environment that is not the scope's own, which the environment's purge gives back.
 */
export const fingerprintCountKey = (accountId: string, kind: string, value: string, environmentId: string | null = null): Key => ({
  PK: `A#${accountId}#FINGERPRINT_COUNT#${kind}#${value}`,
  SK: environmentId === null ? ITEM : `E#${environmentId}`,
});

/** Whether `key` is a fingerprint's count (or a share of one). */
export const isFingerprintCount = (key: Key): boolean => /^A#[^#]+#FINGERPRINT_COUNT#/.test(key.PK);

/**
 * The whole count `key` is a share of (a license's machine or core count, a fingerprint's
 * holders), or undefined when `key` is no such share.
 */
export const countOfShare = (key: Key): Key | undefined =>
  (/#(MACHINE|CORE|PROCESS)_COUNT$/.test(key.PK) || isFingerprintCount(key)) && key.SK.startsWith('E#')
    ? { PK: key.PK, SK: ITEM }
    : undefined;

/**
 * The machines holding one fingerprint in an account, whatever their license and environment:
 * one entry per machine (SK `MACHINE#<id>`) in the partition of the fingerprint's SHA-256, so a
 * machine is found by its fingerprint alone (`/machines/<fingerprint>`).
 */
export const machinesByFingerprintPartition = (accountId: string, fingerprintDigest: string) =>
  `A#${accountId}#MACHINES_BY_FINGERPRINT#${fingerprintDigest}`;

export const machineFingerprintEntryKey = (accountId: string, fingerprintDigest: string, machineId: string): Key => ({
  PK: machinesByFingerprintPartition(accountId, fingerprintDigest),
  SK: `MACHINE#${machineId}`,
});

/** ENVPK: every item of an environment carries it, so a purge can find them all. */
export const environmentMembership = (accountId: string, environmentId: string) => `A#${accountId}#E#${environmentId}`;

/**
 * A collection partition: `name` is the record type's prefix, optionally behind a parent
 * (`USER#<id>#TOKEN` = a user's tokens).
 */
export const collectionPartition = (accountId: string, environmentId: string | null, name: string) =>
  `A#${accountId}#E#${environmentId ?? GLOBAL}#${name}`;

export const collectionName = (type: RecordType, parent?: { type: RecordType; id: string }) =>
  parent ? `${PREFIXES[parent.type]}#${parent.id}#${PREFIXES[type]}` : PREFIXES[type];

/** GSI2..GSI5 hold a record's parent collections, in the order the domain names its parents (slot 0 = GSI2). */
export const PARENT_INDEXES = ['GSI2', 'GSI3', 'GSI4', 'GSI5'] as const;

/**
 * The key attributes of a collection (`<keys>PK`, `<keys>SK`): GSI1 for every record of a type,
 * else its parent slot's.
 */
export function collectionKeys(slot?: number): string {
  if (slot === undefined) return 'GSI1';
  const keys = PARENT_INDEXES[slot];
  if (keys === undefined) throw new Error(`No parent collection index for slot ${slot}`);
  return keys;
}

/**
 * The index over the collection keys `keys` (shared/store/table.ts): it holds the keys and the
 * attributes lists filter on, not the records, which are read from the table by their keys.
 */
export const indexOver = (keys: string): string => `${keys}_SLIM`;

/** A key as one string, for sets and maps of keys. */
export const keyName = (key: Key): string => `${key.PK}\u0000${key.SK}`;

/** Sort key within a collection: newest first when read backwards, ties broken by id. */
export const collectionSortKey = (created: string, id: string) => `${created}#${id}`;

/** Left by an environment's delete until the purge of its records has finished. */
export const purgeMarkerKey = (accountId: string, environmentId: string): Key => ({
  PK: `A#${accountId}#PURGE#${environmentId}`,
  SK: ITEM,
});

/**
 * Left by a removal whose descendants (or a deleted user's owner links) the cascades worker
 * handles, until it has finished: the steps' claims (shared/resumable.ts).
 */
export const cascadeMarkerKey = (accountId: string, id: string): Key => ({
  PK: `A#${accountId}#CASCADE#${id}`,
  SK: ITEM,
});

/** One fixed window of a rate limit; `subject` names what is limited (already hashed if personal). */
export const rateLimitKey = (subject: string, window: number): Key => ({ PK: `RATE#${subject}`, SK: `W#${window}` });

/** A queue consumer's claim on one message's work (see once.ts): `consumer` names the work, `id` the message's own id. */
export const onceKey = (consumer: string, id: string): Key => ({ PK: `ONCE#${consumer}`, SK: id });

/**
 * A password-reset request (shared/resources/passwords/request.ts): written by the request, it means
 * "send this" to the outbox relay; it expires by itself.
 */
export const passwordResetRequestKey = (accountId: string, resetId: string): Key => ({
  PK: `A#${accountId}#PASSWORD_RESET_REQUEST#${resetId}`,
  SK: ITEM,
});
