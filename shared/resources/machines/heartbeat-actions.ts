/**
 * A machine's heartbeat actions (docs/rules.md §22.2, §22.3, Keygen's): a ping keeps the machine alive one
 * duration more, or revives it once dead within its policy's resurrection window; a reset forgets
 * its heartbeat. Each moves the machine in the due index (shared/store/due.ts) and emits its event
 * in one transaction, conditional on the machine as read (heartbeat-writes.ts): an action that
 * races another action or the sweeper (sweep.ts) reads the machine again and judges it again, at
 * most ATTEMPTS times, then answers 409.
 */
import type { Actor } from '../../auth/actor.ts';
import { authorize } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { machineNamed } from '../../licensing/aliases.ts';
import { dueChanges } from '../../store/due.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { getRecordItem, type Item, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { policyOf } from '../policies/beside.ts';
import { type Heartbeat, heartbeatOf } from '../policies/heartbeat.ts';
import { attributePointer } from '../rules.ts';
import { machineDocument } from './document.ts';
import type { MachineRecord } from './entity.ts';
import { deadlineOf, heartbeatAt, revivableUntil } from './heartbeat.ts';
import { asRead, HeartbeatChanged, heartbeatOnMarkers } from './heartbeat-writes.ts';

/** Readings of a machine an action makes before it gives up with 409. */
const ATTEMPTS = 3;

/**
 * How far ahead of now a reset puts a machine that is dead already: a due time in the past could
 * fall before the time of a sweep that is running as the reset commits, which would pass it by.
 */
const RESET_LEAD_MS = 60_000;

export type HeartbeatEvent = 'machine.heartbeat.ping' | 'machine.heartbeat.resurrected' | 'machine.heartbeat.reset';

/** What an action answers: the machine as written, its policy (which judges its status), and whether the ping revived it. */
export interface HeartbeatAnswer {
  machine: MachineRecord;
  policy: Item | undefined;
  resurrected: boolean;
}

interface Decision {
  changes: Record<string, unknown>;
  event: HeartbeatEvent;
  resurrected: boolean;
}

const dead = () => ruleBroken('MACHINE_HEARTBEAT_DEAD', 'machine heartbeat is dead', attributePointer('heartbeatStatus'));

/**
 * POST /machines/<id>/actions/ping: `lastHeartbeat` now, due again one duration later. A dead
 * machine is revived (RESURRECTED) while its resurrection window is open, else 422
 * MACHINE_HEARTBEAT_DEAD; a new life starts either way (its death may be announced again).
 */
export async function pingMachine(actor: Actor, id: string): Promise<HeartbeatAnswer> {
  const item = await authorize(actor, 'machines', await machineNamed(actor, id), 'heartbeat.ping');
  return changeHeartbeat(actor, item, (machine, rules, at): Decision => {
    const resurrected = heartbeatAt(machine, rules, at).heartbeatStatus === 'DEAD';
    if (resurrected && at > revivableUntil(machine, rules)) throw dead();
    const timestamp = new Date(at).toISOString();
    return {
      changes: { lastHeartbeat: timestamp, heartbeatDeathAnnounced: null, updated: timestamp, ...dueChanges(deadlineOf(timestamp, rules)) },
      event: resurrected ? 'machine.heartbeat.resurrected' : 'machine.heartbeat.ping',
      resurrected,
    };
  });
}

/**
 * POST /machines/<id>/actions/reset: `lastHeartbeat` null. Unless its policy requires heartbeats
 * the machine is no longer watched (it leaves the due index until its next ping); if it does, the
 * machine counts from its creation again, as one that never pinged: due when that declares it
 * dead (one duration after its creation, and a minute from now at the earliest), so the sweeper
 * announces its death and culls it as its policy says, never silently.
 */
export async function resetMachineHeartbeat(actor: Actor, id: string): Promise<HeartbeatAnswer> {
  const item = await authorize(actor, 'machines', await machineNamed(actor, id), 'heartbeat.reset');
  return changeHeartbeat(actor, item, (machine, rules, at): Decision => {
    const due = rules.requireHeartbeat ? new Date(Math.max(at + RESET_LEAD_MS, deadlineOf(machine.created, rules).getTime())) : null;
    return {
      changes: { lastHeartbeat: null, updated: new Date(at).toISOString(), ...dueChanges(due) },
      event: 'machine.heartbeat.reset',
      resurrected: false,
    };
  });
}

/**
 * Writes what `decide` makes of the machine as read, with its event; the machine changed
 * meanwhile (a ping, a reset, the sweeper) is read and decided again. A machine whose
 * deactivation the sweeper has started is dead whatever its heartbeat says: 422.
 */
async function changeHeartbeat(
  actor: Actor,
  found: StoredItem<MachineRecord>,
  decide: (machine: MachineRecord, rules: Heartbeat, at: number) => Decision,
): Promise<HeartbeatAnswer> {
  const machine = toRecord('machines', found);
  const { accountId, id } = machine;
  const policy = await policyOf(machine);
  const rules = heartbeatOf(policy);
  let item: StoredItem<MachineRecord> | undefined = found;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (!item) throw new RecordNotFound('machines', id);
    if (item.heartbeatCullStarted) throw dead();
    const { changes, event, resurrected } = decide(toRecord('machines', item), rules, Date.now());
    const changed = new HeartbeatChanged();
    const tx = new Transaction();
    const machine = toRecord(
      'machines',
      tx.update(item, changes, { missing: new RecordNotFound('machines', id), conflict: changed, ...asRead(item) }),
    );
    heartbeatOnMarkers(tx, item, machine.lastHeartbeat ?? null, changed);
    await emitEvent(tx, originOf(machine, actor.scope), event, machineDocument(machine, policy, { resurrected }));
    try {
      await tx.commit();
      return { machine, policy, resurrected };
    } catch (error) {
      if (error !== changed) throw error;
    }
    item = await getRecordItem(accountId, 'machines', id);
  }
  throw conflict('The machine changed while this request was made; retry it');
}

/** The answer's document: the machine as written, RESURRECTED when the ping revived it. */
export const heartbeatDocument = ({ machine, policy, resurrected }: HeartbeatAnswer) => machineDocument(machine, policy, { resurrected });
