/**
 * What the heartbeat sweeper (shared/licensing/heartbeat-sweep.ts) does with a machine found due
 * (docs/rules.md §22.5): it judges the machine by its policy as it is at the sweep's time.
 *
 * - Not watched any more (its policy no longer requires heartbeats and it never pinged): it
 *   leaves the due index.
 * - Alive, or not started yet (its policy's duration grew since it was put in): due again at its
 *   deadline.
 * - Dead: `machine.heartbeat.dead` is emitted once per life (`heartbeatDeathAnnounced`, which a
 *   ping clears). Under KEEP_DEAD, or when any ping may revive it (ALWAYS_REVIVE), it leaves the
 *   index. Under DEACTIVATE_DEAD it is due again when its resurrection window closes, and once
 *   that has passed it is culled: the cull is first recorded on the machine
 *   (`heartbeatCullStarted`, due again CULL_RETRY_MS later), which no ping or reset gets past,
 *   then the machine goes as its deactivation removes it (components, seat and cores given back,
 *   `machine.deleted`). A cull interrupted midway is finished by the sweep that finds it next.
 *
 * Every judgement is written in one transaction with its event, conditional on the machine as
 * read (heartbeat-writes.ts): a machine pinged, reset or judged by another sweep meanwhile is left
 * as that write left it, so two sweeps at once, or a ping racing a cull, never announce a death
 * twice nor cull a machine that is alive.
 */
import { type EventOrigin, emitEvent } from '../../events/emit.ts';
import type { DueHandler } from '../../licensing/heartbeat-sweep.ts';
import { removeWithDescendants } from '../../licensing/removal.ts';
import { type Due, dueChanges } from '../../store/due.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { getItem, type Item, itemOfType, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { policyOf } from '../policies/beside.ts';
import { type Heartbeat, heartbeatOf } from '../policies/heartbeat.ts';
import { machineDocument } from './document.ts';
import type { MachineRecord } from './entity.ts';
import { heartbeatAt, machineDeadlineOf, revivableUntil } from './heartbeat.ts';
import { asRead, HeartbeatChanged } from './heartbeat-writes.ts';
import { SeatChanged } from './seats.ts';

/** How long after a cull starts the sweeper looks at the machine again, should the cull not have finished. */
export const CULL_RETRY_MS = 5 * 60_000;

interface Judgement {
  /** When the machine is due to be looked at again; null: it leaves the index. */
  next: Date | null;
  /** Emit `machine.heartbeat.dead`. */
  announce: boolean;
  cull: boolean;
}

const originOf = (machine: MachineRecord): EventOrigin => ({ accountId: machine.accountId, environmentId: machine.environmentId });

/** The machine's judgement at `at` (ms since the epoch). */
function judge(machine: MachineRecord, rules: Heartbeat, at: number): Judgement {
  const { requireHeartbeat, heartbeatStatus } = heartbeatAt(machine, rules, at);
  if (!requireHeartbeat) return { next: null, announce: false, cull: false };
  if (heartbeatStatus !== 'DEAD') {
    // Due again at its deadline; one alive at its very deadline just after it, never at a time already swept.
    const deadline = machineDeadlineOf(machine, rules).getTime();
    return { next: new Date(Math.max(deadline, at + 1)), announce: false, cull: false };
  }
  const announce = !machine.heartbeatDeathAnnounced;
  const revivable = revivableUntil(machine, rules);
  if (rules.heartbeatCullStrategy === 'KEEP_DEAD' || revivable === Number.POSITIVE_INFINITY) return { next: null, announce, cull: false };
  if (revivable > at) return { next: new Date(revivable), announce, cull: false };
  return { next: new Date(at + CULL_RETRY_MS), announce, cull: true };
}

/** The machines' handler: judges the machine found due at `at` and writes what it makes of it. */
export const machineDue: DueHandler = async (due: Due, at: number): Promise<void> => {
  const item = itemOfType('machines', await getItem({ PK: due.PK, SK: due.SK }));
  // Gone, or moved in the index since it fell due (pinged, reset, judged by another sweep).
  if (!item || item.DUESK !== due.due) return;
  const machine = toRecord('machines', item);
  const policy = await policyOf(machine);
  if (machine.heartbeatCullStarted) return cull(item, policy);
  const { next, announce, cull: culled } = judge(machine, heartbeatOf(policy), at);
  const judgedAt = new Date(at).toISOString();
  const changed = new HeartbeatChanged();
  const tx = new Transaction();
  const written = tx.update(
    item,
    {
      ...dueChanges(next),
      ...(announce ? { heartbeatDeathAnnounced: judgedAt } : {}),
      ...(culled ? { heartbeatCullStarted: judgedAt } : {}),
    },
    { missing: changed, conflict: changed, ...asRead(item) },
  );
  if (announce) await emitEvent(tx, originOf(machine), 'machine.heartbeat.dead', machineDocument(toRecord('machines', written), policy));
  try {
    await tx.commit();
  } catch (error) {
    // Pinged, reset, removed or judged by another sweep meanwhile: that write stands.
    if (error === changed) return;
    throw error;
  }
  if (culled) await cull(written, policy);
};

/** Readings of a machine a cull makes when its cores keep changing (seats.ts) before it leaves it to the next sweep. */
const CULL_ATTEMPTS = 3;

/**
 * Removes a machine whose cull has started, as its deactivation would: it gives back the cores it
 * counts as read, so a change of them meanwhile has it read again. One removed meanwhile is left so.
 */
async function cull(found: StoredItem<MachineRecord>, policy: Item | undefined): Promise<void> {
  let item: StoredItem<MachineRecord> | undefined = found;
  for (let attempt = 1; item; attempt++) {
    const machine = toRecord('machines', item);
    try {
      return await removeWithDescendants(item, (tx) =>
        emitEvent(tx, originOf(machine), 'machine.deleted', machineDocument(machine, policy)),
      );
    } catch (error) {
      if (error instanceof RecordNotFound) return;
      if (!(error instanceof SeatChanged) || attempt >= CULL_ATTEMPTS) throw error;
    }
    item = itemOfType('machines', await getItem({ PK: found.PK, SK: found.SK }));
  }
}
