/**
 * What a validation reads once its license is known, named at once and read in one BatchGetItem
 * (with whatever the pipeline read ahead): the license (validate-key: its marker names it), its
 * policy and its owner (the marker carries both), the machine a `machine` scope names, the markers
 * of the fingerprints given (each carries what
 * validation needs of its machine: machines/machine.ts), the device counts of the components given
 * (shared/licensing/fingerprints.ts), and the entitlements scope's markers and sets. None
 * of these keys depends on what another of them holds, so none waits for another
 * (docs/data-model.md, pattern 54). Whatever a check needs beyond them it reads itself: the
 * license's counts (usage.ts: only a strict policy, or a scope that found no machine, needs
 * them), a machine made before markers carried its facts, its components.
 */

import { devicePresenceKey, deviceTotalKey } from '../../licensing/fingerprints.ts';
import { type Key, keyName, type RecordType, recordKey } from '../../store/keys.ts';
import { readItems } from '../../store/read-ahead.ts';
import type { RecordOf } from '../../store/record-types.ts';
import { type Item, isUuid, itemOfType, type StoredItem } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { entitlementKeys } from '../entitlements/check.ts';
import { machineMarkerKey } from '../machines/entity.ts';
import type { ValidationScope } from './validation.ts';

/** What names the keys: the license's ids (its policy and owner as its marker or record tells them) and the scope given. */
export interface ReadPlan {
  accountId: string;
  licenseId: string;
  policyId: string;
  ownerId: string | null;
  given: ValidationScope;
}

/** The fingerprints the scope names machines by (`fingerprint` wins over `fingerprints`), each once. */
export const fingerprintsOf = (given: ValidationScope): string[] | undefined =>
  given.fingerprint !== undefined ? [given.fingerprint] : given.fingerprints && [...new Set(given.fingerprints)];

/** The id a `machine` scope names, if it can name one (a UUID). */
export const namedMachineId = (given: ValidationScope) =>
  given.machine !== undefined && isUuid(given.machine) ? given.machine.toLowerCase() : undefined;

export class ValidationReads {
  private constructor(
    private readonly items: Map<string, Item>,
    /** Every key the plan named, each once (what validate-key remembers: reads-before.ts). */
    readonly named: readonly Key[],
  ) {}

  /** Reads every key `plan` names but those of `known` (items read already), in one BatchGetItem beside what `scope` read ahead. */
  static async of(plan: ReadPlan, scope: Scope, known: readonly Item[] = []): Promise<ValidationReads> {
    const have = new Set(known.map(keyName));
    const named = [...new Map(keysOf(plan).map((key) => [keyName(key), key])).values()];
    const found = await readItems(
      scope.readAhead,
      named.filter((key) => !have.has(keyName(key))),
    );
    return new ValidationReads(new Map([...known, ...found].map((item) => [keyName(item), item])), named);
  }

  /** The item at `key`, if it was among those read and exists. */
  get(key: Key): Item | undefined {
    return this.items.get(keyName(key));
  }

  /** Whether `key` was among those read (a count read is 0 when absent). */
  count(key: Key): number {
    return Number(this.get(key)?.n ?? 0);
  }

  /** The stored item of the record of `type` with `id`, if it was among those read and exists. */
  record<K extends RecordType>(accountId: string, type: K, id: string | null | undefined): StoredItem<RecordOf<K>> | undefined {
    return id ? itemOfType(type, this.get(recordKey(accountId, type, id))) : undefined;
  }

  /** Every item read: what judges the entitlements scope. */
  all(): Item[] {
    return [...this.items.values()];
  }
}

function keysOf({ accountId, licenseId, policyId, ownerId, given }: ReadPlan): Key[] {
  const keys: Key[] = [
    recordKey(accountId, 'licenses', licenseId),
    recordKey(accountId, 'policies', policyId),
    ...(ownerId ? [recordKey(accountId, 'users', ownerId)] : []),
  ];
  const machineId = namedMachineId(given);
  if (machineId !== undefined) keys.push(recordKey(accountId, 'machines', machineId));
  for (const fingerprint of fingerprintsOf(given) ?? []) keys.push(machineMarkerKey(accountId, licenseId, fingerprint));
  if (given.fingerprint !== undefined && given.components !== undefined) {
    keys.push(deviceTotalKey(accountId, licenseId, given.fingerprint));
    for (const component of new Set(given.components)) keys.push(devicePresenceKey(accountId, licenseId, given.fingerprint, component));
  }
  keys.push(...entitlementKeys({ accountId, id: licenseId, policyId }, given.entitlements));
  return keys;
}
