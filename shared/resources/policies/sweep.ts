/**
 * A policy that starts requiring heartbeats watches the machines already activated under it too
 * (docs/rules.md §22.6): its update puts the policy itself in the due index, and the sweeper
 * (shared/licensing/heartbeat-sweep.ts) then walks its licenses' machines, putting each one that is
 * not in the index there at its deadline as the policy now judges it (its last heartbeat, else its
 * creation, plus the duration); the machines' own handler does the rest. A sweep walks at most
 * WALK_LICENSES licenses; a policy with more is due again at once, its walk going on where it
 * stopped (`heartbeatWalk`: the environment and the page cursor). Every write is conditional on
 * what was read: a machine put in the index meanwhile (a ping) keeps its own due time, and a
 * policy changed meanwhile starts its walk anew.
 */

import { childEnvironments } from '../../licensing/graph.ts';
import type { DueHandler } from '../../licensing/heartbeat-sweep.ts';
import { parentIn } from '../../licensing/slots.ts';
import { type Due, dueChanges } from '../../store/due.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { recordKey } from '../../store/keys.ts';
import { listCollection } from '../../store/paging.ts';
import { getItem, type Item, itemOfType } from '../../store/records.ts';
import type { Scope } from '../../store/scope.ts';
import { Transaction } from '../../store/transaction.ts';
import type { MachineRecord } from '../machines/entity.ts';
import { machineDeadlineOf } from '../machines/heartbeat.ts';
import { type Heartbeat, heartbeatOf } from './heartbeat.ts';

/** Licenses walked in one sweep. */
export const WALK_LICENSES = 25;

/** Where a walk stands: the index of the environment in childEnvironments' list, and the page cursor in it. */
interface Walk {
  environment: number;
  cursor: string | null;
}

class Skipped extends Error {}

/** Whether changing a policy from `before` to `after` makes it watch machines it did not: the walk to start. */
export const startsWatching = (before: object, after: object) =>
  !heartbeatOf(before).requireHeartbeat && heartbeatOf(after).requireHeartbeat;

/** What a policy update writes to start the walk: due now, from the first license. */
export const walkStart = () => ({ ...dueChanges(new Date()), heartbeatWalk: null });

export const policyDue: DueHandler = async (due: Due, at: number): Promise<void> => {
  const policy = itemOfType('policies', await getItem({ PK: due.PK, SK: due.SK }));
  if (!policy || policy.DUESK !== due.due) return;
  const rules = heartbeatOf(policy);
  const { accountId } = policy;
  const environments = await childEnvironments(accountId, policy.environmentId);
  let walk = (policy.heartbeatWalk as Walk | undefined) ?? { environment: 0, cursor: null };
  let walked = 0;
  while (rules.requireHeartbeat && walked < WALK_LICENSES && walk.environment < environments.length) {
    const environmentId = environments[walk.environment] ?? null;
    const scope: Scope = { accountId, environmentId, readable: [environmentId] };
    const page = await listCollection(
      scope,
      { type: 'licenses', parent: parentIn('licenses', 'policy', policy.id) },
      { mode: 'cursor', cursor: walk.cursor, size: WALK_LICENSES - walked },
      // It acts on what it walks: a record the index shows is read as it stands.
      { consistent: true },
    );
    for (const license of page.records) await watchMachinesOf(accountId, environments, license.id, rules);
    walked += page.records.length;
    walk = page.nextCursor
      ? { environment: walk.environment, cursor: page.nextCursor }
      : { environment: walk.environment + 1, cursor: null };
  }
  const done = !rules.requireHeartbeat || walk.environment >= environments.length;
  const tx = new Transaction();
  tx.update(policy, done ? { ...dueChanges(null), heartbeatWalk: null } : { ...dueChanges(new Date(at + 1)), heartbeatWalk: walk }, {
    missing: new RecordNotFound('policies', policy.id),
    unchanged: { DUESK: due.due },
    conflict: new Skipped(),
  });
  try {
    await tx.commit();
  } catch (error) {
    // Changed meanwhile (updated again, walked by another sweep): its new state stands.
    if (!(error instanceof Skipped || error instanceof RecordNotFound)) throw error;
  }
};

/** Puts each machine of the license that is not in the due index there, at its deadline. */
async function watchMachinesOf(accountId: string, environments: (string | null)[], licenseId: string, rules: Heartbeat): Promise<void> {
  for (const environmentId of environments) {
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listCollection<'machines'>>> = await listCollection(
        { accountId, environmentId, readable: [environmentId] },
        { type: 'machines', parent: parentIn('machines', 'license', licenseId) },
        { mode: 'cursor', cursor, size: 100 },
        { consistent: true },
      );
      await Promise.all(page.records.map((machine) => watch(machine, rules)));
      cursor = page.nextCursor ?? null;
    } while (cursor);
  }
}

async function watch(machine: MachineRecord, rules: Heartbeat): Promise<void> {
  const item: Item = { ...machine, ...recordKey(machine.accountId, 'machines', machine.id) };
  const tx = new Transaction();
  tx.update(item, dueChanges(machineDeadlineOf(machine, rules)), { missing: new Skipped(), unset: ['DUESK'] });
  try {
    await tx.commit();
  } catch (error) {
    // In the index already (pinged meanwhile), or gone.
    if (!(error instanceof Skipped)) throw error;
  }
}
