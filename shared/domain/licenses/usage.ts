/**
 * What a license uses, as its validation reads it (docs/rules.md §14.5): its machines, their
 * cores and its processes, counted in every environment together by the counts the activations
 * keep (shared/domain/machines/seats.ts), and the machine a `machine` scope names. Everything a
 * validation may need of them is read at most once, in one BatchGetItem, and only when a check
 * asks (a validation without a machine scope under a policy that is not strict reads none of it).
 */
import {
  type Key,
  licenseCoreCountKey,
  licenseMachineCountKey,
  licenseProcessCountKey,
  machineProcessCountKey,
  recordKey,
} from '../../store/keys.ts';
import { anyInCollection } from '../../store/paging.ts';
import { readItem, readItems } from '../../store/read-ahead.ts';
import { type Item, isUuid } from '../../store/records.ts';
import { canRead, type Scope } from '../../store/scope.ts';
import { SLOTS } from '../licensing/slots.ts';
import type { Limits } from '../policies/limits.ts';
import type { ValidationScope } from './validation.ts';

/** What the reads depend on: the license, the policy's limits, the scope given, where the request reads. */
export interface UsageSubject {
  license: { accountId: string; id: string };
  limits: Limits;
  given: ValidationScope;
  scope: Scope;
}

const same = (a: Key, b: Key) => a.PK === b.PK && a.SK === b.SK;

/** The id a `machine` scope names, if it can name one (a UUID). */
const namedMachine = (given: ValidationScope) =>
  given.machine !== undefined && isUuid(given.machine) ? given.machine.toLowerCase() : undefined;

/** A license's usage, read lazily and once. */
export class Usage {
  private readonly keys: Key[];
  private read?: Promise<Item[]>;

  constructor(private readonly subject: UsageSubject) {
    this.keys = wantedKeys(subject);
  }

  private items(): Promise<Item[]> {
    this.read ??= readItems(this.subject.scope.readAhead, this.keys);
    return this.read;
  }

  /** The count `n` of `key`: from the batch when it was among its keys, else read on its own (absent: 0). */
  private async count(key: Key): Promise<number> {
    const item = this.keys.some((wanted) => same(wanted, key))
      ? (await this.items()).find((found) => same(found, key))
      : await readItem(this.subject.scope.readAhead, key);
    return Number(item?.n ?? 0);
  }

  private get accountId() {
    return this.subject.license.accountId;
  }

  /** The license's machines in every environment, as maxMachines counts them. */
  machines(): Promise<number> {
    return this.count(licenseMachineCountKey(this.accountId, this.subject.license.id));
  }

  /**
   * Whether the license has any machine. Machines activated before seats were counted hold no
   * seat (seats.ts): a license whose count is 0 is looked at for such machines, where the request
   * reads (one Query per partition, only then).
   */
  async any(): Promise<boolean> {
    if ((await this.machines()) > 0) return true;
    const { scope, license } = this.subject;
    return anyInCollection(scope, { type: 'machines', parent: { type: 'licenses', id: license.id, slot: SLOTS.machines.license } });
  }

  /** The cores of the license's machines in every environment, as maxCores counts them. */
  cores(): Promise<number> {
    return this.count(licenseCoreCountKey(this.accountId, this.subject.license.id));
  }

  /**
   * The live processes maxProcesses counts: the license's under PER_LICENSE; under PER_MACHINE,
   * those of `machine` (the machine the scopes matched), and none without one (Keygen's: no
   * machine, nothing to count).
   */
  async processes(machine: Item | undefined): Promise<number> {
    if (this.subject.limits.processLeasingStrategy === 'PER_LICENSE') {
      return this.count(licenseProcessCountKey(this.accountId, this.subject.license.id));
    }
    return machine ? this.count(machineProcessCountKey(this.accountId, machine.id as string)) : 0;
  }

  /** The machine a `machine` scope names, if the request may read it and it belongs to the license. */
  async namedMachine(): Promise<Item | undefined> {
    const id = namedMachine(this.subject.given);
    if (id === undefined) return undefined;
    const key = recordKey(this.accountId, 'machines', id);
    const item = (await this.items()).find((found) => same(found, key));
    const { scope, license } = this.subject;
    if (!item || !canRead(scope, 'machines', (item.environmentId as string | null) ?? null)) return undefined;
    return item.licenseId === license.id ? item : undefined;
  }
}

/**
 * The keys a validation may need, so that whichever check reads first reads them all: the
 * machine count (the scopes' NO_MACHINE(S), strict's counts); under a strict policy the counts
 * its limits bound; the machine a `machine` scope names, with its process count under
 * PER_MACHINE (the machine a fingerprint matches is known only once found: read then).
 */
function wantedKeys({ license, limits, given }: UsageSubject): Key[] {
  const { accountId, id } = license;
  const machine = namedMachine(given);
  const keys = [licenseMachineCountKey(accountId, id)];
  if (machine !== undefined) keys.push(recordKey(accountId, 'machines', machine));
  if (!limits.strict) return keys;
  if (limits.maxCores !== null) keys.push(licenseCoreCountKey(accountId, id));
  if (limits.maxProcesses !== null) {
    if (limits.processLeasingStrategy === 'PER_LICENSE') keys.push(licenseProcessCountKey(accountId, id));
    else if (machine !== undefined) keys.push(machineProcessCountKey(accountId, machine));
  }
  return keys;
}
