/**
 * Components created with their machine (`POST /machines` with `relationships.components`, as
 * Keygen's SDKs send them): each follows the rules of `POST /components` (docs/rules.md §21.2) and the
 * policy's componentUniquenessStrategy, two of them may not share a fingerprint, and each emits
 * `component.created` as its own create would. Everything is checked before anything is written,
 * the fingerprints already taken included, so a refusal leaves nothing behind.
 *
 * The machine and its components go in one transaction when they fit in DynamoDB's 100
 * operations; a component writes its record, its marker, up to eight counts and an event per
 * webhook endpoint, so twenty of them may not. The rest then follow in further transactions,
 * each requiring the machine to be there still; when one of those fails (a concurrent create
 * took a fingerprint since it was checked), what was written is withdrawn as a deactivation
 * would remove it, and the request fails as if nothing had been written.
 */
import type { Actor } from '../../auth/actor.ts';
import { authorizeAction } from '../../auth/authorize.ts';
import { conflict, RuleBroken, ruleBroken } from '../../errors.ts';
import { firstTaken, type Scopes } from '../../licensing/fingerprints.ts';
import { logger } from '../../logger.ts';
import { type Key, recordKey } from '../../store/keys.ts';
import type { Item } from '../../store/records.ts';
import { MAX_OPERATIONS, Transaction } from '../../store/transaction.ts';
import type { MachineRecord } from '../machines/entity.ts';
import type { Metadata } from '../rules.ts';
import { addComponent, componentHold, componentRules, newComponent } from './service.ts';

export interface NestedComponent {
  fingerprint: string;
  name: string;
  metadata?: Metadata;
}

/** A new machine with what it sits under, as its create read them. */
export interface Activation extends Scopes {
  machine: MachineRecord;
  /** The machine's stored key, which later transactions require. */
  machineKey: Key;
}

/** The components checked and ready: `commitWith` commits the machine's transaction with them. */
export interface ComponentsOfNewMachine {
  /**
   * Commits `tx` (the machine's own writes) with the components; `withdraw` removes the machine
   * and the components already written, when a later transaction fails.
   */
  commitWith(tx: Transaction, withdraw: (written: Item[]) => Promise<void>): Promise<void>;
}

const pointerOf = (index: number) => `/data/relationships/components/data/${index}`;

/** A rule broken by the component at `index`: its pointer names that component. */
function atComponent<T>(index: number, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof RuleBroken) || !error.pointer?.startsWith('/data/')) throw error;
    throw ruleBroken(error.code, error.message, `${pointerOf(index)}${error.pointer.slice('/data'.length)}`);
  }
}

/** Checks the components a new machine comes with (403, 422); nothing is written yet. */
export async function componentsOfNewMachine(
  actor: Actor,
  activation: Activation,
  inputs: readonly NestedComponent[],
): Promise<ComponentsOfNewMachine> {
  if (inputs.length === 0) return { commitWith: (tx) => tx.commit() };
  await authorizeAction(actor, 'components', 'create', { license: activation.license });
  const firstOf = new Map<string, number>();
  inputs.forEach((input, index) => {
    atComponent(index, () => componentRules(input));
    const first = firstOf.get(input.fingerprint);
    if (first !== undefined) {
      throw ruleBroken(
        'FINGERPRINT_TAKEN',
        `fingerprint is also the one of component ${first}: a machine's components have different fingerprints`,
        `${pointerOf(index)}/attributes/fingerprint`,
      );
    }
    firstOf.set(input.fingerprint, index);
  });
  const components = inputs.map((input, index) => {
    const component = newComponent(actor, activation.machine, input);
    return { component, hold: componentHold(component, activation.machine, activation, `${pointerOf(index)}/attributes/fingerprint`) };
  });
  const taken = await firstTaken(
    actor.scope.accountId,
    components.map(({ hold }) => hold),
  );
  if (taken) throw taken.taken;

  const add = (tx: Transaction, { component, hold }: (typeof components)[number]) => addComponent(tx, actor, component, hold);
  return {
    async commitWith(tx, withdraw) {
      // What one component takes of a transaction at most (the first in one also raises the counters of its collections).
      const probe = new Transaction();
      await add(probe, components[0]);
      const operations = probe.size;
      const written: Item[] = [];
      let current = tx;
      let next = 0;
      for (;;) {
        const adding: Item[] = [];
        // A transaction after the machine's takes at least one component, however large.
        const fits = () => current.size + operations <= MAX_OPERATIONS || (current !== tx && adding.length === 0);
        while (next < components.length && fits()) adding.push(await add(current, components[next++]));
        try {
          await current.commit();
        } catch (error) {
          if (current !== tx) {
            await withdraw(written).catch((failure: Error) =>
              logger.error('an activation whose components failed could not be withdrawn', {
                machineId: activation.machine.id,
                error: failure,
              }),
            );
          }
          throw error;
        }
        written.push(...adding);
        if (next === components.length) return;
        current = new Transaction();
        // The machine, with the owners its components carry (a license's owner change hands them over: licenses/owner.ts).
        current.requireState(
          activation.machineKey,
          {
            PK: activation.machineKey.PK,
            ownerId: activation.machine.ownerId ?? null,
            licenseOwnerId: activation.machine.licenseOwnerId ?? null,
          },
          conflict('The machine was deactivated, or its owners changed, while its components were being added'),
        );
        // And its owner, whom the components name too: a deleted user's links are cleared after its delete.
        const { accountId, ownerId } = activation.machine;
        if (ownerId) current.requireExists(recordKey(accountId, 'users', ownerId), conflict("The machine's owner was deleted meanwhile"));
      }
    },
  };
}
