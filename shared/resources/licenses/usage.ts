/**
 * What a license uses, as its validation reads it (docs/rules.md §19.3): its machines, their
 * cores and its processes, counted in every environment together by the counts the activations
 * keep (shared/resources/machines/seats.ts), read together and only when a check asks (a strict
 * policy; a scope that found no machine), and the machine a `machine` scope names, among the
 * validation's one read (validation-reads.ts).
 */

import { parentIn } from '../../licensing/slots.ts';
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
import { type Item, visibleItems } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import type { MachineFacts } from '../machines/entity.ts';
import type { Limits } from '../policies/limits.ts';
import type { ValidationScope } from './validation.ts';
import { namedMachineId, type ValidationReads } from './validation-reads.ts';

/** What the counts belong to: the license, the policy's limits, the scope given, where the request reads. */
export interface UsageSubject {
  license: { accountId: string; id: string };
  limits: Limits;
  given: ValidationScope;
  scope: Scope;
  reads: ValidationReads;
}

export class Usage {
  private counts?: Promise<Item[]>;

  constructor(private readonly subject: UsageSubject) {}

  private get accountId() {
    return this.subject.license.accountId;
  }

  /** The license's machine, core and process counts, read together the first time one is asked for. */
  private async count(key: Key): Promise<number> {
    const { accountId } = this;
    const id = this.subject.license.id;
    const keys = [licenseMachineCountKey(accountId, id), licenseCoreCountKey(accountId, id), licenseProcessCountKey(accountId, id)];
    this.counts ??= readItems(this.subject.scope.readAhead, keys);
    return Number((await this.counts).find((item) => item.PK === key.PK && item.SK === key.SK)?.n ?? 0);
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
    return anyInCollection(scope, { type: 'machines', parent: parentIn('machines', 'license', license.id) });
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
  async processes(machine: MachineFacts | undefined): Promise<number> {
    if (this.subject.limits.processLeasingStrategy === 'PER_LICENSE')
      return this.count(licenseProcessCountKey(this.accountId, this.subject.license.id));
    if (!machine) return 0;
    return Number((await readItem(this.subject.scope.readAhead, machineProcessCountKey(this.accountId, machine.id)))?.n ?? 0);
  }

  /** The machine a `machine` scope names, if the request may read it and it belongs to the license. */
  async namedMachine(): Promise<Item | undefined> {
    const id = namedMachineId(this.subject.given);
    if (id === undefined) return undefined;
    const found = this.subject.reads.get(recordKey(this.accountId, 'machines', id));
    const { scope, license } = this.subject;
    const [item] = found ? await visibleItems(scope, 'machines', [found]) : [];
    return item?.licenseId === license.id ? item : undefined;
  }
}
