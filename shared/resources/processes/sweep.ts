/**
 * The sweeper's look at a process that fell due (shared/licensing/heartbeat-sweep.ts): a process
 * dead at the sweep's time is removed, with its counts given back and `process.heartbeat.dead`
 * (Keygen removes a dead process without `process.deleted`), in one transaction conditional on
 * the process being as read: a ping since then keeps it, and of two looks at one process (two
 * sweeps overlapping, a minute swept again) only the first removes it and tells of it.
 *
 * A process is judged by its policy as it is now: one alive at the sweep (its policy's
 * heartbeatDuration grew since it was put in the index) is put back in the index at its new due
 * time; one already moved to a later time by a ping is left to it.
 */
import { emitEvent } from '../../events/emit.ts';
import type { DueHandler } from '../../licensing/heartbeat-sweep.ts';
import { type Due, dueChanges } from '../../store/due.ts';
import { getItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { policyOf } from '../policies/beside.ts';
import { heartbeatOf } from '../policies/heartbeat.ts';
import { processDocument } from './document.ts';
import { dueOf, heartbeatAt } from './entity.ts';

/** The process is no longer as the sweep read it: pinged, moved or removed meanwhile. */
class ChangedMeanwhile extends Error {}

export const sweepProcess: DueHandler = async (due: Due, at: number): Promise<void> => {
  const item = await getItem({ PK: due.PK, SK: due.SK });
  if (!item) return; // removed since it fell due
  const process = toRecord('processes', item);
  const policy = await policyOf(process);
  const rules = heartbeatOf(policy);
  // Every change of a process but the sweeper's own moves its heartbeat: the heartbeat read is the process read.
  const asRead = { lastHeartbeat: process.lastHeartbeat };
  const tx = new Transaction();
  if (heartbeatAt(process, rules, at).status === 'DEAD') {
    tx.delete(item, new ChangedMeanwhile(), asRead);
    await emitEvent(tx, process, 'process.heartbeat.dead', processDocument(process, policy, at));
  } else {
    // Due later than this sweep (pinged since it fell due): a later sweep finds it there.
    if (typeof item.DUESK === 'string' && Date.parse(item.DUESK) > at) return;
    tx.update(item, dueChanges(dueOf(process.lastHeartbeat, rules)), { missing: new ChangedMeanwhile(), unchanged: asRead });
  }
  try {
    await tx.commit();
  } catch (error) {
    if (!(error instanceof ChangedMeanwhile)) throw error;
  }
};
