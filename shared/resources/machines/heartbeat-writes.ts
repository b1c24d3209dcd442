/**
 * What every write of a machine's heartbeat is conditional on (a ping, a reset, the sweeper's
 * judgement): the machine as it was read. Every such write moves the machine in the due index
 * (`DUESK`) or out of it, so the due time as read, with the last heartbeat as read and no cull
 * started, tells that nothing else judged the machine meanwhile: of two writes from one reading,
 * one lands and the other reads the machine again.
 */
import type { Item, StoredItem } from '../../store/records.ts';
import type { Transaction } from '../../store/transaction.ts';

const READ = ['DUESK', 'lastHeartbeat'] as const;

/** `tx.update`'s conditions for the machine as read. */
export function asRead(item: Item): { unchanged: Record<string, unknown>; unset: string[] } {
  const unchanged: Record<string, unknown> = {};
  const unset = ['heartbeatCullStarted'];
  for (const name of READ) {
    if (item[name] == null) unset.push(name);
    else unchanged[name] = item[name];
  }
  return { unchanged, unset };
}

/** The machine changed since it was read: read it again. */
export class HeartbeatChanged extends Error {
  constructor() {
    super("the machine's heartbeat changed since it was read");
  }
}

/**
 * A machine's fingerprint markers carry its last heartbeat (machine.ts, `machineMarkerFacts`), so
 * every write of it writes them too, in its transaction; each only while it is the machine's.
 * A null heartbeat is carried as none.
 */
export function heartbeatOnMarkers(tx: Transaction, item: StoredItem, lastHeartbeat: string | null, changed: Error): void {
  for (const pk of item.markers ?? []) {
    tx.patch({ PK: pk, SK: item.SK }, { lastHeartbeat }, {}, { state: { ref: item.PK }, changed });
  }
}
