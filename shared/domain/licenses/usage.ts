/**
 * What a license uses, as its validation reads it (docs/rules.md §14.5): its machines, their
 * cores and its processes, counted in every environment together by the counts the activations
 * keep (shared/domain/machines/seats.ts), and the machine a `machine` scope names — all among the
 * validation's one read (validation-reads.ts).
 */
import {
  licenseCoreCountKey,
  licenseMachineCountKey,
  licenseProcessCountKey,
  machineProcessCountKey,
  recordKey,
} from '../../store/keys.ts';
import { anyInCollection } from '../../store/paging.ts';
import { readItem } from '../../store/read-ahead.ts';
import type { Item } from '../../store/records.ts';
import { canRead, type Scope } from '../../store/scope.ts';
import { SLOTS } from '../licensing/slots.ts';
import type { MachineFacts } from '../machines/machine.ts';
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
  constructor(private readonly subject: UsageSubject) {}

  private get accountId() {
    return this.subject.license.accountId;
  }

  /** The license's machines in every environment, as maxMachines counts them. */
  machines(): number {
    return this.subject.reads.count(licenseMachineCountKey(this.accountId, this.subject.license.id));
  }

  /**
   * Whether the license has any machine. Machines activated before seats were counted hold no
   * seat (seats.ts): a license whose count is 0 is looked at for such machines, where the request
   * reads (one Query per partition, only then).
   */
  async any(): Promise<boolean> {
    if (this.machines() > 0) return true;
    const { scope, license } = this.subject;
    return anyInCollection(scope, { type: 'machines', parent: { type: 'licenses', id: license.id, slot: SLOTS.machines.license } });
  }

  /** The cores of the license's machines in every environment, as maxCores counts them. */
  cores(): number {
    return this.subject.reads.count(licenseCoreCountKey(this.accountId, this.subject.license.id));
  }

  /**
   * The live processes maxProcesses counts: the license's under PER_LICENSE; under PER_MACHINE,
   * those of `machine` (the machine the scopes matched: read now unless a `machine` scope named
   * it), and none without one (Keygen's: no machine, nothing to count).
   */
  async processes(machine: MachineFacts | undefined): Promise<number> {
    const { reads, limits, scope } = this.subject;
    if (limits.processLeasingStrategy === 'PER_LICENSE')
      return reads.count(licenseProcessCountKey(this.accountId, this.subject.license.id));
    if (!machine) return 0;
    const key = machineProcessCountKey(this.accountId, machine.id);
    if (machine.id === namedMachineId(this.subject.given)) return reads.count(key);
    return Number((await readItem(scope.readAhead, key))?.n ?? 0);
  }

  /** The machine a `machine` scope names, if the request may read it and it belongs to the license. */
  namedMachine(): Item | undefined {
    const id = namedMachineId(this.subject.given);
    if (id === undefined) return undefined;
    const item = this.subject.reads.get(recordKey(this.accountId, 'machines', id));
    const { scope, license } = this.subject;
    if (!item || !canRead(scope, 'machines', (item.environmentId as string | null) ?? null)) return undefined;
    return item.licenseId === license.id ? item : undefined;
  }
}
