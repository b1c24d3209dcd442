/**
 * License validation (docs/rules.md §19, §23.3): `POST /licenses/actions/validate-key` (no bearer:
 * the key is the credential) and `POST /licenses/<id>/actions/validate` (a bearer who may see the
 * license). Both reach a verdict `{valid, detail, code}` about the license at a time `ts`,
 * answered as the reply's meta with the request's nonce and scope (`answerMeta`); the same meta
 * goes with the event `license.validation.succeeded` or `license.validation.failed`. An unknown
 * key, or a key of a license the request's environment cannot see, is `NOT_FOUND` without a
 * license (and without an event).
 *
 * A validation reads once after its first read, and writes only its event when an endpoint
 * listens (docs/data-model.md, pattern 54): everything its checks look at is named as soon as the
 * license is known and read in one BatchGetItem (validation-reads.ts); the checks judge what was
 * read; the address limit of validate-key is counted by the container (shared/store/rate-limit.ts).
 * Only records made before their markers carried what validation needs cost further reads.
 *
 * Before the verdict, a license of a FROM_FIRST_VALIDATION policy that has no expiry yet gets one
 * (expiry.ts), whatever the verdict, so that the verdict and the answer show it; not a global
 * license validated from a SHARED environment, which only reads it: it is judged unstarted.
 *
 * The checks run in Keygen's order (CHECKS below); the first that fails gives the verdict, not
 * valid but for a strict policy's limit passed within its overage allowance. The machine scopes
 * judge the machines' heartbeats (HEARTBEAT_NOT_STARTED, HEARTBEAT_DEAD; fingerprints match alive
 * machines only); a strict policy's counts come after the scopes (usage.ts). Last
 * comes the expiry: an expired license is EXPIRED, not valid under RESTRICT_ACCESS, yet valid
 * under MAINTAIN_ACCESS and ALLOW_ACCESS (under REVOKE_ACCESS it failed first). Else VALID.
 *
 * Components are matched against the one machine `fingerprint` names: the given fingerprints
 * that are among that machine's components must number at least 1 (MATCH_ANY), 2 (MATCH_TWO),
 * half of the machine's components rounded up (MATCH_MOST), or all of them (MATCH_ALL). A
 * cloned machine (another device reporting the first one's machine fingerprint) thus fails,
 * while an upgraded one (one part replaced) still passes under MATCH_MOST.
 */

import type { Actor, Requester } from '../../auth/actor.ts';
import { authorize, present } from '../../auth/authorize.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { devicePresenceKey, deviceTotalKey } from '../../licensing/fingerprints.ts';
import { parentIn } from '../../licensing/slots.ts';
import { logger } from '../../logger.ts';
import { childItems } from '../../store/cascade.ts';
import { collectionName, collectionPartition, counterKey, idOfRecordKey, uniqueKey } from '../../store/keys.ts';
import { readItem } from '../../store/read-ahead.ts';
import { getItem, getRecordItem, type Item, isUuid, itemOfType, type StoredItem, toRecord, visibleItems } from '../../store/records.ts';
import { canRead, canWrite, type Scope } from '../../store/scope.ts';
import { Transaction } from '../../store/transaction.ts';
import { markerRef } from '../../store/unique.ts';
import { judgeEntitlements } from '../entitlements/check.ts';
import type { Environment } from '../environments/entity.ts';
import { licenseUserKey } from '../license-users/entity.ts';
import { factsOfMarker, factsOfRecord, type MachineFacts, machineMarkerKey } from '../machines/entity.ts';
import { heartbeatAt } from '../machines/heartbeat.ts';
import { checkInOf, isCheckInOverdue } from '../policies/check-in.ts';
import { type Expiration, expirationOf, type MatchingStrategy } from '../policies/entity.ts';
import { type Heartbeat, heartbeatOf } from '../policies/heartbeat.ts';
import { allowance, type Limits, limitsOf } from '../policies/limits.ts';
import { now } from '../rules.ts';
import { EMAIL_MARKER, normaliseEmail } from '../users/entity.ts';
import { licenseDocument } from './document.ts';
import {
  isExpired,
  isPossibleKey,
  LICENSE_KEY_MARKER,
  type LicenseRecord,
  licenseKeyMarkerOf,
  licenseKeyValue,
  maxUsersOf,
} from './entity.ts';
import { startExpiryOnValidation } from './expiry.ts';
import { rememberReads } from './reads-before.ts';
import { standingOf } from './standing.ts';
import { Usage } from './usage.ts';
import { fingerprintsOf, type ReadPlan, ValidationReads } from './validation-reads.ts';

/** What a validation checks besides the license itself (docs/rules.md §19.1). */
export interface ValidationScope {
  /** The license's environment, by id or code (null: global), as Keygen's SDKs send it. */
  environment?: string | null;
  product?: string;
  policy?: string;
  /** One of the license's users (its owner, or a user attached), by id or e-mail. */
  user?: string;
  /** Entitlement codes the license must hold. */
  entitlements?: string[];
  /** A machine of the license, by id. */
  machine?: string;
  fingerprint?: string;
  /** Fingerprints of which at least one must be a machine of the license (`fingerprint` wins when both are given). */
  fingerprints?: string[];
  components?: string[];
}

/** A license key to validate, with its scope and the request's nonce. */
export interface KeyValidation {
  key: string;
  scope?: ValidationScope;
  nonce?: number;
}

/** Every verdict a validation may reach, in the order of the checks (NOT_FOUND: no such key). */
export const VALIDATION_CODES = [
  'NOT_FOUND',
  'BANNED',
  'SUSPENDED',
  'EXPIRED',
  'OVERDUE',
  'ENVIRONMENT_SCOPE_MISMATCH',
  'PRODUCT_SCOPE_MISMATCH',
  'POLICY_SCOPE_MISMATCH',
  'USER_SCOPE_MISMATCH',
  'ENTITLEMENTS_SCOPE_EMPTY',
  'ENTITLEMENTS_MISSING',
  'NO_MACHINE',
  'NO_MACHINES',
  'MACHINE_SCOPE_MISMATCH',
  'HEARTBEAT_NOT_STARTED',
  'HEARTBEAT_DEAD',
  'FINGERPRINT_SCOPE_EMPTY',
  'FINGERPRINT_SCOPE_MISMATCH',
  'FINGERPRINT_SCOPE_REQUIRED',
  'COMPONENTS_SCOPE_REQUIRED',
  'COMPONENTS_SCOPE_EMPTY',
  'COMPONENTS_SCOPE_MISMATCH',
  'TOO_MANY_USERS',
  'TOO_MANY_MACHINES',
  'TOO_MANY_CORES',
  'TOO_MANY_PROCESSES',
  'VALID',
] as const;

export type ValidationCode = (typeof VALIDATION_CODES)[number];

export type Verdict = {
  valid: boolean;
  detail: string;
  code: ValidationCode;
};

/** The license validated (null: no license has the key), the verdict and when it was reached. */
export interface Validation {
  license: LicenseRecord | null;
  /** The license's policy as the validation read it (the answer shows the license by it). */
  policy?: Item;
  verdict: Verdict;
  /** ISO 8601, UTC. */
  ts: string;
}

/** What a validation request asked besides its key, echoed in its answer. */
export interface ValidationEcho {
  nonce?: number;
  scope?: ValidationScope;
}

/** The answer's meta, also the meta of the validation's event: the verdict, its time, the nonce and scope when sent. */
export const answerMeta = ({ verdict, ts }: Pick<Validation, 'verdict' | 'ts'>, { nonce, scope }: ValidationEcho = {}) => ({
  ts,
  ...verdict,
  ...(nonce !== undefined ? { nonce } : {}),
  ...(scope !== undefined ? { scope } : {}),
});

/**
 * A failed check: its code and detail, never valid but for a limit passed within the overage its
 * policy tolerates (the third element: valid).
 */
type Failure = readonly [ValidationCode, string] | readonly [ValidationCode, string, boolean];

/** What the checks look at: the license with its policy and owner as stored, the scope given, where the request reads. */
interface Subject {
  license: LicenseRecord;
  policy: Item | undefined;
  owner: Item | undefined;
  expiration: Expiration;
  limits: Limits;
  heartbeat: Heartbeat;
  given: ValidationScope;
  /** What the request may read (the license's machines and their components). */
  scope: Scope;
  /** The request's environment: the license's own, or the one a global license is seen from. */
  environment: Environment | null;
  /** Everything read for the checks at once (validation-reads.ts). */
  reads: ValidationReads;
  /** The license's machines, cores and processes, and the machine a `machine` scope names (usage.ts). */
  usage: Usage;
  /** The machine `given.fingerprint` names, once the fingerprint check has found it (for the components check). */
  machine?: MachineFacts;
  /** The machine alive the scopes matched (a fingerprint's wins over `machine`'s): whose processes PER_MACHINE counts. */
  matched?: MachineFacts;
}

type Check = (subject: Subject) => Failure | undefined | Promise<Failure | undefined>;

const STANDING_DETAILS = { BANNED: 'is banned', SUSPENDED: 'is suspended', EXPIRED: 'is expired' } as const;

/** BANNED (its owner is), SUSPENDED, EXPIRED under REVOKE_ACCESS: the license's standing (standing.ts). */
const standing: Check = ({ license, owner, expiration }) => {
  const stopped = standingOf(license, owner, expiration);
  return stopped && [stopped, STANDING_DETAILS[stopped]];
};

/** OVERDUE: the license's policy requires check-ins and its next one has passed (docs/rules.md §18.8). */
const checkIn: Check = ({ license, policy }) =>
  isCheckInOverdue(license.lastCheckIn, checkInOf(policy)) ? ['OVERDUE', 'is overdue for check in'] : undefined;

/** ENVIRONMENT_SCOPE_MISMATCH: `environment` names the license's environment by id or code; null names the global one. */
const environmentScope: Check = ({ license, given, environment }) => {
  if (given.environment === undefined) return undefined;
  const home = license.environmentId === null ? null : environment?.id === license.environmentId ? environment : undefined;
  const named = given.environment?.toLowerCase() ?? null;
  const matches = home === null ? named === null : named === home?.id || named === home?.code.toLowerCase();
  return matches ? undefined : ['ENVIRONMENT_SCOPE_MISMATCH', 'environment scope does not match'];
};

const productScope: Check = ({ license, given }) =>
  given.product !== undefined && given.product.toLowerCase() !== license.productId
    ? ['PRODUCT_SCOPE_MISMATCH', 'product scope does not match']
    : undefined;

const policyScope: Check = ({ license, given }) =>
  given.policy !== undefined && given.policy.toLowerCase() !== license.policyId
    ? ['POLICY_SCOPE_MISMATCH', 'policy scope does not match']
    : undefined;

/**
 * USER_SCOPE_MISMATCH: `user` names one of the license's users by id or e-mail: its owner, or a
 * user attached to it (docs/rules.md §18.11), read only when the owner does not match.
 */
const userScope: Check = async ({ license, owner, given }) => {
  if (given.user === undefined) return undefined;
  const named = given.user.trim().toLowerCase();
  if (owner !== undefined && (named === owner.id || named === normaliseEmail(String(owner.email)))) return undefined;
  return (await isAttached(license, named)) ? undefined : ['USER_SCOPE_MISMATCH', 'user scope does not match'];
};

/** Whether the user `named` (an id, or an e-mail address) is attached to `license`. */
async function isAttached(license: LicenseRecord, named: string): Promise<boolean> {
  const { accountId } = license;
  let userId: string | undefined = named;
  if (!isUuid(named)) {
    const marker = await getItem(uniqueKey(accountId, EMAIL_MARKER, normaliseEmail(named)));
    userId = typeof marker?.ref === 'string' ? idOfRecordKey(marker.ref) : undefined;
  }
  return userId !== undefined && (await getItem(licenseUserKey(accountId, license.id, userId))) !== undefined;
}

/**
 * TOO_MANY_USERS: the license has more users (its owner and those attached) than its `maxUsers`,
 * valid within the overage allowance (docs/rules.md §18.11); its attachments' count is read only
 * under a limit.
 */
const usersLimit: Check = async ({ license, policy, limits }) => {
  const limit = maxUsersOf(license, policy);
  if (limit === null) return undefined;
  const attached = await getItem(
    counterKey(
      collectionPartition(license.accountId, license.environmentId, collectionName('license-users', { type: 'licenses', id: license.id })),
    ),
  );
  const users = Number(attached?.n ?? 0) + (license.ownerId ? 1 : 0);
  return overLimit('TOO_MANY_USERS', 'has too many associated users', users, limit, limits);
};

/**
 * NO_MACHINE (a node-locked policy: not floating) or NO_MACHINES (a floating one), as Keygen
 * tells them apart, when the license has no machine at all, in any environment; `what` is the
 * scope asked about (a machine, a fingerprint).
 */
async function noMachine({ limits, usage }: Subject, what: string): Promise<Failure | undefined> {
  if (await usage.any()) return undefined;
  return limits.floating
    ? ['NO_MACHINES', `${what} is not activated (has no associated machines)`]
    : ['NO_MACHINE', `${what} is not activated (has no associated machine)`];
}

/** A machine's heartbeat status now, under the policy's heartbeat rules. */
const statusOf = (machine: MachineFacts, heartbeat: Heartbeat) => heartbeatAt(machine, heartbeat).heartbeatStatus;

/**
 * NO_MACHINE(S), MACHINE_SCOPE_MISMATCH: `machine` is the id of a machine of the license; then
 * HEARTBEAT_NOT_STARTED (the policy requires a heartbeat the machine has not started) and
 * HEARTBEAT_DEAD, as Keygen orders them.
 */
const machineScope: Check = async (subject) => {
  const { given, usage, heartbeat } = subject;
  if (given.machine === undefined) return undefined;
  const named = await usage.namedMachine();
  // A machine found says the license has one; only when none is found are its machines counted.
  if (!named)
    return (
      (await noMachine(subject, 'machine')) ?? [
        'MACHINE_SCOPE_MISMATCH',
        'machine is not activated (does not match any associated machines)',
      ]
    );
  const machine = factsOfRecord(named);
  const status = statusOf(machine, heartbeat);
  if (heartbeat.requireHeartbeat && status === 'NOT_STARTED') return ['HEARTBEAT_NOT_STARTED', 'machine heartbeat is required'];
  if (status === 'DEAD') return ['HEARTBEAT_DEAD', 'machine heartbeat is dead'];
  subject.matched = machine;
  return undefined;
};

/**
 * FINGERPRINT_SCOPE_EMPTY, NO_MACHINE(S); HEARTBEAT_DEAD when every fingerprint given is a dead
 * machine of the license; FINGERPRINT_SCOPE_MISMATCH when none is a machine alive (`fingerprint`
 * must be one; of `fingerprints`, when `fingerprint` is not given, at least one: Keygen's
 * default, MATCH_ANY); HEARTBEAT_NOT_STARTED when the policy requires a heartbeat one of those
 * alive has not started.
 */
const fingerprintScope: Check = async (subject) => {
  const { given, license, heartbeat } = subject;
  const fingerprints = fingerprintsOf(given);
  if (fingerprints === undefined) return undefined;
  if (fingerprints.length === 0) return ['FINGERPRINT_SCOPE_EMPTY', 'fingerprint scope cannot be empty'];
  const machines = await Promise.all(fingerprints.map((fingerprint) => machineOf(subject, license, fingerprint)));
  const found = machines.filter((machine): machine is MachineFacts => machine !== undefined);
  // A machine found says the license has one; only when none is found are its machines counted.
  if (found.length === 0) {
    const none = await noMachine(subject, 'fingerprint');
    if (none) return none;
  }
  const statuses = new Map(found.map((machine) => [machine, statusOf(machine, heartbeat)]));
  const alive = found.filter((machine) => statuses.get(machine) !== 'DEAD');
  if (found.length - alive.length === fingerprints.length) return ['HEARTBEAT_DEAD', 'machine heartbeat is dead'];
  if (alive.length === 0) return ['FINGERPRINT_SCOPE_MISMATCH', 'fingerprint is not activated (does not match any associated machines)'];
  if (heartbeat.requireHeartbeat && alive.some((machine) => statuses.get(machine) === 'NOT_STARTED')) {
    return ['HEARTBEAT_NOT_STARTED', 'machine heartbeat is required'];
  }
  subject.machine = given.fingerprint !== undefined ? machines[0] : undefined;
  subject.matched = alive[0];
  return undefined;
};

/**
 * FINGERPRINT_SCOPE_REQUIRED (components name no machine without `fingerprint`),
 * COMPONENTS_SCOPE_REQUIRED (the policy's requireComponentsScope), COMPONENTS_SCOPE_EMPTY,
 * COMPONENTS_SCOPE_MISMATCH (the policy's componentMatchingStrategy).
 */
const componentsScope: Check = async ({ given, policy, scope, machine, reads, license }) => {
  if (given.components === undefined) {
    return policy?.requireComponentsScope === true ? ['COMPONENTS_SCOPE_REQUIRED', 'components scope is required'] : undefined;
  }
  if (given.fingerprint === undefined || machine === undefined) {
    return ['FINGERPRINT_SCOPE_REQUIRED', 'fingerprint scope is required when components are given'];
  }
  if (given.components.length === 0) return ['COMPONENTS_SCOPE_EMPTY', 'components scope cannot be empty'];
  const strategy = (policy?.componentMatchingStrategy as MatchingStrategy | undefined) ?? 'MATCH_ANY';
  const asked = [...new Set(given.components)];
  const fingerprint = given.fingerprint;
  let total: number;
  let matched: number;
  if (machine.componentsCounted) {
    // The device counts read with everything else: the machine's components, and each given one's presence on it.
    total = reads.count(deviceTotalKey(license.accountId, license.id, fingerprint));
    matched = asked.filter((component) => reads.count(devicePresenceKey(license.accountId, license.id, fingerprint, component)) > 0).length;
  } else {
    const known = new Set((await componentsOf(scope, machine.id)).map((component) => component.fingerprint));
    total = known.size;
    matched = asked.filter((component) => known.has(component)).length;
  }
  if (total > 0 && matched >= required(strategy, total)) return undefined;
  return ['COMPONENTS_SCOPE_MISMATCH', `components do not match the machine (${strategy}: ${matched} of ${total} matched)`];
};

/**
 * The machine of the license with `fingerprint`, as its marker (read with everything else)
 * tells it; a machine made before its marker carried its facts is read. Undefined when there is
 * none the request may read.
 */
async function machineOf({ reads, scope }: Subject, license: LicenseRecord, fingerprint: string): Promise<MachineFacts | undefined> {
  const marker = reads.get(machineMarkerKey(license.accountId, license.id, fingerprint));
  if (!marker) return undefined;
  let facts = factsOfMarker(marker);
  if (!facts) {
    const ref = markerRef(marker);
    const item = ref && itemOfType('machines', await getItem(ref));
    facts = item && factsOfRecord(item);
  }
  return facts && canRead(scope, 'machines', facts.environmentId) ? facts : undefined;
}

/** ENTITLEMENTS_SCOPE_EMPTY, ENTITLEMENTS_MISSING: the license holds every code asked for (entitlements/check.ts). */
const entitlementsScope: Check = ({ license, given, reads }) => {
  const failed = judgeEntitlements(license, given.entitlements, reads.all());
  return failed && [failed.code, failed.detail];
};

/** A count above its limit: valid while within the overage the policy's strategy tolerates (limits.ts). */
function overLimit(code: ValidationCode, detail: string, count: number, limit: number | null, limits: Limits): Failure | undefined {
  if (limit === null || count <= limit) return undefined;
  const within = allowance(limit, limits.overageStrategy);
  return [code, detail, within === null || count <= within];
}

/**
 * Under a strict policy only, after the scopes: NO_MACHINE (node-locked) or NO_MACHINES
 * (floating) when the license has no machine; TOO_MANY_MACHINES (a node-locked policy's limit
 * is 1 when it names none), TOO_MANY_CORES, TOO_MANY_PROCESSES when a count is above its limit
 * (valid within the overage allowance).
 */
const strictLimits: Check = async (subject) => {
  const { limits, usage, matched } = subject;
  if (!limits.strict) return undefined;
  if (!(await usage.any())) {
    return limits.floating
      ? ['NO_MACHINES', 'must have at least 1 associated machine']
      : ['NO_MACHINE', 'must have exactly 1 associated machine'];
  }
  const machineLimit = limits.floating ? limits.maxMachines : (limits.maxMachines ?? 1);
  const [machines, cores, processes] = await Promise.all([
    usage.machines(),
    limits.maxCores === null ? 0 : usage.cores(),
    limits.maxProcesses === null ? 0 : usage.processes(matched),
  ]);
  return (
    overLimit('TOO_MANY_MACHINES', 'has too many associated machines', machines, machineLimit, limits) ??
    overLimit('TOO_MANY_CORES', 'has too many associated machine cores', cores, limits.maxCores, limits) ??
    overLimit('TOO_MANY_PROCESSES', 'has too many associated processes', processes, limits.maxProcesses, limits)
  );
};

/** The checks, in Keygen's order. */
const CHECKS: readonly Check[] = [
  standing,
  checkIn,
  environmentScope,
  productScope,
  policyScope,
  userScope,
  entitlementsScope,
  machineScope,
  fingerprintScope,
  componentsScope,
  usersLimit,
  strictLimits,
];

/** The verdict: the first failing check's, else by the expiry (what the expiration strategy lets an expired license do), else VALID. */
async function verdictOf(subject: Subject): Promise<Verdict> {
  for (const check of CHECKS) {
    const failure = await check(subject);
    if (failure) return { valid: failure[2] ?? false, code: failure[0], detail: failure[1] };
  }
  if (isExpired(subject.license.expiry)) {
    const { expirationStrategy } = subject.expiration;
    return {
      valid: expirationStrategy === 'MAINTAIN_ACCESS' || expirationStrategy === 'ALLOW_ACCESS',
      code: 'EXPIRED',
      detail: 'is expired',
    };
  }
  return { valid: true, code: 'VALID', detail: 'is valid' };
}

/**
 * Validates a license, seen from `requester`'s environment, with everything its checks read
 * read at once (`reads`): its expiry started first when its policy says so, then the verdict,
 * announced with the answer's meta: its event is its only write, and none when no endpoint listens.
 */
async function validate(
  requester: Requester,
  item: StoredItem<LicenseRecord>,
  reads: ValidationReads,
  echo: ValidationEcho,
): Promise<Validation> {
  const { accountId } = item;
  const policy = reads.record(accountId, 'policies', item.policyId);
  const owner = reads.record(accountId, 'users', item.ownerId);
  const expiration = expirationOf(policy);
  const license = toRecord('licenses', await startExpiryOnValidation(requester.scope, item, expiration));
  const limits = limitsOf(policy);
  const given = echo.scope ?? {};
  const subject: Subject = {
    license,
    policy,
    owner,
    expiration,
    limits,
    heartbeat: heartbeatOf(policy),
    given,
    scope: requester.scope,
    environment: requester.environment,
    reads,
    usage: new Usage({ license, limits, given, scope: requester.scope, reads }),
  };
  const verdict = await verdictOf(subject);
  const ts = now();
  const noted = notesValidation(requester.scope, license, ts);
  const validated = noted ? { ...license, lastValidated: ts } : license;
  const validation: Validation = { license: validated, policy, verdict, ts };
  const tx = new Transaction();
  const kind = verdict.valid ? 'license.validation.succeeded' : 'license.validation.failed';
  await emitEvent(tx, originOf(validated, requester.scope), kind, licenseDocument(validated, policy), answerMeta(validation, echo));
  // Two writes side by side: the time costs one round trip, whether an endpoint listens or not.
  await Promise.all([tx.commit(), noted ? noteValidated(item, ts) : undefined]);
  return validation;
}

/** How old a license's lastValidated must be for a validation to write it again (docs/rules.md §19.5). */
const LAST_VALIDATED_RESOLUTION_MS = 60_000;

/**
 * Whether a validation at `ts` writes the license's lastValidated: when the one it holds is more
 * than a minute old (or none), so that a license validated again and again (the hot path) is only
 * read; never a global license seen from a SHARED environment, which only reads it.
 */
function notesValidation(scope: Scope, license: LicenseRecord, ts: string): boolean {
  if (!canWrite(scope, license.environmentId)) return false;
  return license.lastValidated === undefined || Date.parse(ts) - Date.parse(license.lastValidated) >= LAST_VALIDATED_RESOLUTION_MS;
}

/** The license removed meanwhile: nothing to note. */
class LicenseGone extends Error {}

/**
 * Writes `lastValidated` (never `updated`: a validation changes nothing of the license). Best
 * effort: the verdict is reached and answered whatever becomes of the note (a license removed
 * meanwhile, a write throttled), which is logged.
 */
async function noteValidated(item: StoredItem<LicenseRecord>, ts: string): Promise<void> {
  const tx = new Transaction();
  tx.update(
    { PK: item.PK, SK: item.SK, accountId: item.accountId, environmentId: item.environmentId },
    { lastValidated: ts },
    { missing: new LicenseGone() },
  );
  try {
    await tx.commit();
  } catch (error) {
    if (!(error instanceof LicenseGone))
      logger.warn('a validation could not note its time on the license', { licenseId: item.id, error: error as Error });
  }
}

/** What names the reads: a license's record, or its key's marker (which carries its policy and owner). */
const planOf = (
  license: Pick<LicenseRecord, 'accountId' | 'id' | 'policyId'> & { ownerId?: string | null },
  given: ValidationScope | undefined,
): ReadPlan => ({
  accountId: license.accountId,
  licenseId: license.id,
  policyId: license.policyId,
  ownerId: license.ownerId ?? null,
  given: given ?? {},
});

const notFound = (): Validation => ({
  license: null,
  verdict: { valid: false, code: 'NOT_FOUND', detail: 'license key was not found' },
  ts: now(),
});

/**
 * POST /licenses/actions/validate-key: no credential but the key, inside the request's
 * environment. The key's marker (read ahead with the account) names the license, its policy
 * and its owner, so everything else is read in one BatchGetItem; a marker made before it carried
 * them costs one read more (the license first). What that BatchGetItem read is remembered, and
 * the container's next validation of the key with the same scope reads it ahead (reads-before.ts).
 */
export async function validateKey(requester: Requester, { key, ...echo }: KeyValidation): Promise<Validation> {
  const { scope } = requester;
  const markerKey = isPossibleKey(key) ? uniqueKey(scope.accountId, LICENSE_KEY_MARKER, licenseKeyValue(key)) : undefined;
  const marker = markerKey && (await readItem(scope.readAhead, markerKey));
  const named = licenseKeyMarkerOf(marker);
  if (!named) return notFound();
  const { licenseId, carried } = named;
  // A marker made before it carried the license's policy and owner: the license is read first.
  const earlier = carried ? undefined : await getRecordItem(scope.accountId, 'licenses', licenseId);
  const known = earlier ?? (carried && { accountId: scope.accountId, id: licenseId, ...carried });
  if (!known) return notFound();
  const plan = planOf(known, echo.scope);
  const reads = await ValidationReads.of(plan, scope, earlier ? [earlier] : []);
  // The next validation of this key with this scope reads these ahead, with the marker.
  if (markerKey && carried) rememberReads(markerKey.PK, echo.scope, reads.named);
  const found = reads.record(scope.accountId, 'licenses', licenseId);
  // A license of an environment this request cannot see does not exist for it, nor does one under a
  // removal under way (its policy or product removed, its own deletion to follow).
  const [item] = found ? await visibleItems(scope, 'licenses', [found]) : [];
  if (!item) return notFound();
  return validate(requester, item, reads, echo);
}

/** POST /licenses/<id>/actions/validate: a bearer validates a license it may see (read ahead with the bearer). */
export async function validateLicense(actor: Actor, id: string, echo: ValidationEcho = {}): Promise<Validation> {
  const item = await authorize(actor, 'licenses', id, 'validate');
  // The license is read already: the reads hand it back without reading it again.
  const reads = await ValidationReads.of(planOf(item, echo.scope), actor.scope, [item]);
  const validation = await validate(actor, item, reads, echo);
  return { ...validation, license: validation.license && present(actor, 'licenses', validation.license) };
}

/** How many of the machine's `total` components must be among the given fingerprints. */
export function required(strategy: MatchingStrategy, total: number): number {
  switch (strategy) {
    case 'MATCH_ANY':
      return 1;
    case 'MATCH_TWO':
      return 2;
    case 'MATCH_MOST':
      return Math.ceil(total / 2);
    case 'MATCH_ALL':
      return total;
  }
}

/** The machine's components in every environment the request can see (one partition each): for a machine made before the device counts. */
async function componentsOf(scope: Scope, machineId: string): Promise<Item[]> {
  const lists = await Promise.all(
    scope.readable.map((environmentId) =>
      childItems(scope.accountId, environmentId, 'components', parentIn('components', 'machine', machineId)),
    ),
  );
  return lists.flat();
}
