/**
 * Fingerprint uniqueness judged over everything in scope (docs/rules.md §21.1, §23.2). A policy names the
 * scope a new machine's or component's fingerprint must be unique in (machineUniquenessStrategy,
 * componentUniquenessStrategy); the fingerprint is refused when any record in that scope holds it,
 * whatever strategy that record was created under.
 *
 * - The narrowest scope every strategy implies (a machine's license, a component's machine) is held
 *   by an exclusive marker naming its holder, claimed by every create; validation finds a machine
 *   by its fingerprint within its license through it (docs/data-model.md, pattern 24).
 * - Every wider scope (a component's license; the policy, the product, the account) has a count of
 *   the fingerprint's holders in it (fingerprintCountKey), joined in the transaction of every create
 *   and left by every delete, cascade included (the item lists its counts as `counted`). A create
 *   requires the count of its strategy's scope to be 0 in the very update that raises it, so of
 *   concurrent creates in one scope exactly one passes.
 * - A count carries the ENVPK of its scope's environment (none for the account); a holder inside
 *   another environment (a SHARED one below a global license, policy or product; any one, for the
 *   account) is counted as well in that environment's share, which the environment's purge gives
 *   back (shared/store/shares.ts).
 *
 * Records made before the counts existed hold only the marker their own strategy's scope had (a
 * machine: its license's; a component: the one of the strategy it was made under, which a create
 * under that strategy still finds). They are in no count, so a create under another strategy does
 * not see them: a wider one misses them outside their own scope, a narrower one misses a component
 * made under a wider strategy on the same machine.
 */
import { digest } from '../auth/secrets.ts';
import { ruleBroken } from '../errors.ts';
import { attributePointer } from '../resources/rules.ts';
import type { AccessPattern } from '../store/data-model.ts';
import { environmentMembership, fingerprintCountKey, type Key, uniqueKey } from '../store/keys.ts';
import { getItems, type Item, type RecordOf, type StoredItem, type StoredRecord } from '../store/records.ts';
import type { HolderCount, Parent, Transaction, UniqueClaim } from '../store/transaction.ts';

export const FINGERPRINT_MAX_BYTES = 4096;

/** A machine's or a component's fingerprint: at most 4 KB. */
export function fingerprintRule(fingerprint: string) {
  if (Buffer.byteLength(fingerprint) > FINGERPRINT_MAX_BYTES) {
    throw ruleBroken(
      'FINGERPRINT_TOO_LONG',
      `fingerprint is too long (maximum is ${FINGERPRINT_MAX_BYTES} bytes)`,
      attributePointer('fingerprint'),
    );
  }
}

export type Level = 'machine' | 'license' | 'policy' | 'product' | 'account';

/** `UNIQUE_PER_POLICY` → `policy`. */
export const levelOf = (strategy: string): Level => strategy.slice('UNIQUE_PER_'.length).toLowerCase() as Level;

/** Where a holder sits: its own environment, the ids of its scopes and their environments (null: global). */
export interface Placement {
  accountId: string;
  environmentId: string | null;
  machineId?: string;
  licenseId: string;
  policyId: string;
  productId: string;
  scopeEnvironments: { license: string | null; policy: string | null; product: string | null };
  /** A component's machine's fingerprint: what its device counts are keyed by. */
  machineFingerprint?: string;
}

/** The stored records a holder sits under; one a delete took meanwhile may be missing (the create then fails on its parent). */
export interface Scopes {
  license?: StoredItem<RecordOf<'licenses'>>;
  policy?: StoredItem<RecordOf<'policies'>>;
  product?: StoredItem<RecordOf<'products'>>;
}

/** The environments of a holder's license, policy and product. */
export const scopeEnvironmentsOf = (scopes: Scopes): Placement['scopeEnvironments'] => ({
  license: scopes.license?.environmentId ?? null,
  policy: scopes.policy?.environmentId ?? null,
  product: scopes.product?.environmentId ?? null,
});

/** The SHA-256 of `<level>:<scope id>:<fingerprint>`: the value of a component's marker and of every count. */
export const fingerprintValue = (level: Level, scopeId: string, fingerprint: string) => digest(`${level}:${scopeId}:${fingerprint}`);

function scopeOf(placement: Placement, level: Level): { id: string; environmentId: string | null } {
  switch (level) {
    case 'machine':
      if (placement.machineId === undefined) throw new Error('Only a component sits on a machine');
      return { id: placement.machineId, environmentId: placement.environmentId };
    case 'account':
      return { id: placement.accountId, environmentId: null };
    default:
      return { id: placement[`${level}Id`], environmentId: placement.scopeEnvironments[level] };
  }
}

/** How a kind of record holds its fingerprints. */
export interface HolderRules {
  /** The count kind in fingerprintCountKey. */
  kind: 'MACHINE' | 'COMPONENT';
  /** The exclusive marker of the narrowest scope; its value is fingerprintValue's unless `value` says otherwise. */
  marker: { level: Level; kind: string; value?: (placement: Placement, fingerprint: string) => string };
  /** The wider scopes, each with a count. */
  counted: readonly Level[];
  /** Whether records made before the counts held a marker (`marker.kind`, fingerprintValue) of their strategy's wider scope. */
  earlierMarkers: boolean;
  /** Whether each holder is counted on its device as well (deviceCounts): components. */
  device?: boolean;
}

/**
 * A component's presence on its machine (`n` 1 while it is there), and the machine's components
 * (`n`: how many), both keyed by the machine's fingerprint on its license rather than by its id,
 * so validation reads them in the same BatchGetItem as the machine's marker, knowing only the
 * license and the fingerprints it was given (docs/data-model.md, pattern 54).
 */
export const devicePresenceKey = (accountId: string, licenseId: string, machineFingerprint: string, fingerprint: string): Key =>
  fingerprintCountKey(accountId, 'COMPONENT', digest(`device:${licenseId}:${digest(machineFingerprint)}:${fingerprint}`));

export const deviceTotalKey = (accountId: string, licenseId: string, machineFingerprint: string): Key =>
  fingerprintCountKey(accountId, 'COMPONENT', digest(`device-total:${licenseId}:${digest(machineFingerprint)}`));

/** The device counts a component joins (with their shares when it sits outside its license's environment). */
function deviceCounts(placement: Placement, machineFingerprint: string, fingerprint: string): HolderCount[] {
  const { accountId, environmentId, licenseId } = placement;
  const licenseEnvironment = placement.scopeEnvironments.license;
  const membership = (environment: string | null) => (environment ? environmentMembership(accountId, environment) : undefined);
  const keys = [
    devicePresenceKey(accountId, licenseId, machineFingerprint, fingerprint),
    deviceTotalKey(accountId, licenseId, machineFingerprint),
  ];
  return keys.flatMap((key) => [
    { key, membership: membership(licenseEnvironment) },
    ...(environmentId !== null && environmentId !== licenseEnvironment
      ? [{ key: { PK: key.PK, SK: `E#${environmentId}` }, membership: membership(environmentId) }]
      : []),
  ]);
}

/** What a create writes and requires for its fingerprint, and what decides whether the fingerprint is taken. */
export interface FingerprintHold {
  unique: UniqueClaim[];
  counted: HolderCount[];
  /** Markers of records made before the counts, in the strategy's scope: each must be absent. */
  earlier: Key[];
  /** The count of the strategy's scope, when it is a wider one: it must be 0. */
  judged?: Key;
  taken: Error;
}

/** The hold of `fingerprint` by a new record placed at `placement`, judged in `strategy`'s scope (else `taken`). */
export function fingerprintHold(
  rules: HolderRules,
  placement: Placement,
  fingerprint: string,
  strategy: string,
  taken: Error,
): FingerprintHold {
  const strategyLevel = levelOf(strategy);
  const { accountId, environmentId } = placement;
  const membership = (environment: string | null) => (environment ? environmentMembership(accountId, environment) : undefined);
  const counted: HolderCount[] = [];
  let judged: Key | undefined;
  for (const level of rules.counted) {
    const scope = scopeOf(placement, level);
    const value = fingerprintValue(level, scope.id, fingerprint);
    const key = fingerprintCountKey(accountId, rules.kind, value);
    counted.push({ key, membership: membership(scope.environmentId), ...(level === strategyLevel ? { taken } : {}) });
    if (level === strategyLevel) judged = key;
    if (environmentId !== null && environmentId !== scope.environmentId) {
      counted.push({ key: fingerprintCountKey(accountId, rules.kind, value, environmentId), membership: membership(environmentId) });
    }
  }
  if (rules.device && placement.machineFingerprint !== undefined)
    counted.push(...deviceCounts(placement, placement.machineFingerprint, fingerprint));
  const earlier =
    rules.earlierMarkers && strategyLevel !== rules.marker.level
      ? [uniqueKey(accountId, rules.marker.kind, fingerprintValue(strategyLevel, scopeOf(placement, strategyLevel).id, fingerprint))]
      : [];
  const { marker } = rules;
  const markerValue =
    marker.value?.(placement, fingerprint) ?? fingerprintValue(marker.level, scopeOf(placement, marker.level).id, fingerprint);
  return {
    unique: [{ kind: marker.kind, value: markerValue, taken }],
    counted,
    earlier,
    judged,
    taken,
  };
}

/** Creates `record` holding its fingerprint as `hold` says, in its collections under `parents`. */
export function createHolder(tx: Transaction, record: StoredRecord, parents: (Parent | undefined)[], hold: FingerprintHold): Item {
  const item = tx.create(record, { parents, unique: hold.unique, counted: hold.counted });
  for (const key of hold.earlier) tx.requireState(key, { PK: undefined }, hold.taken);
  return item;
}

/**
 * The first of `holds` whose fingerprint some record holds already, as the table stands now: for a
 * change written in several transactions, which refuses what it can before writing any. The
 * transactions still judge every hold themselves.
 */
export async function firstTaken(accountId: string, holds: readonly FingerprintHold[]): Promise<FingerprintHold | undefined> {
  const markerKey = (hold: FingerprintHold) => hold.unique.map((claim) => uniqueKey(accountId, claim.kind, claim.value));
  const keys = holds.flatMap((hold) => [...markerKey(hold), ...hold.earlier, ...(hold.judged ? [hold.judged] : [])]);
  if (keys.length === 0) return undefined;
  const found = new Map((await getItems(keys)).map((item) => [keyId(item), item]));
  const present = (key: Key) => found.has(keyId(key));
  const counting = (key: Key | undefined) => key !== undefined && Number(found.get(keyId(key))?.n ?? 0) > 0;
  return holds.find((hold) => markerKey(hold).some(present) || hold.earlier.some(present) || counting(hold.judged));
}

const keyId = (key: Key) => `${key.PK}|${key.SK}`;

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 43,
    name: "Judge a fingerprint in its strategy's scope, over every holder there",
    operation:
      "TransactWriteItems with the record: Update `ADD n :1` of the fingerprint's count in every scope wider than the marker's (26, 24), with `attribute_not_exists(n) OR n <= :0` on the scope the policy's strategy names, and `ADD n :1` of the share when the record's environment is not the scope's; for a component, a ConditionCheck that no marker of a component made before the counts holds the fingerprint in that scope. A delete: `ADD n :-1` of every count the item lists in `counted`, then DeleteItem of each if `n <= 0`; a create made of several transactions (a machine with many components) reads the counts and markers first (BatchGetItem)",
    index: 'table',
    key: '`PK = A#<acct>#FINGERPRINT_COUNT#<MACHINE or COMPONENT>#<sha256(scope:id:fp)>`, `SK = #` (share: `SK = E#<env>`)',
    usedBy: 'machines.create, components.create, machine and component delete, cascades (34)',
    tests: ['store/data-model', 'http/uniqueness-strategies', 'http/components-uniqueness'],
  },
];
