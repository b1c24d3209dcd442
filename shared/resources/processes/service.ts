/**
 * Processes (docs/rules.md §24): created on a machine, pinged while they run, removed when
 * they stop or die. Who may do what (docs/authorization.md) is shared/resources/processes/policy.ts.
 */

import type { Actor } from '../../auth/actor.ts';
import { authorize, authorizeAction, restriction } from '../../auth/authorize.ts';
import { conflict, ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { machineNamed } from '../../licensing/aliases.ts';
import { relatedItem, requireAncestry } from '../../licensing/graph.ts';
import { type Filter, type FilterValues, filteredList } from '../../licensing/lists.ts';
import { parentsOf } from '../../licensing/slots.ts';
import { dueAttributes, dueChanges } from '../../store/due.ts';
import { RecordNotFound } from '../../store/errors.ts';
import type { Page, PageRequest } from '../../store/paging.ts';
import { backoff, getNamedRecordItems, getVisibleItem, type Item, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { updateAndAnnounce } from '../changes.ts';
import { underMachine } from '../machines/entity.ts';
import { policyOf } from '../policies/beside.ts';
import { type Heartbeat, heartbeatOf } from '../policies/heartbeat.ts';
import { limitsOf } from '../policies/limits.ts';
import { attributePointer, type Metadata, maxLength, metadataRule, newRecord, now } from '../rules.ts';
import { inheritedFrom, inheritedOwnersChanged, requireInheritedOwner, unlessOwnerGone } from '../users/owners.ts';
import { boundProcesses, type ProcessPlacement, processCounts } from './counts.ts';
import { processDocument } from './document.ts';
import { dueOf, heartbeatAt, PROCESS_PID_MARKER, type ProcessRecord, processPidValue } from './entity.ts';

export interface NewProcess {
  pid: string;
  metadata?: Metadata;
  machineId: string;
}

/** A process with the policy it is judged by (undefined: gone), as an answer shows it. */
export interface JudgedProcess {
  process: ProcessRecord;
  policy: Item | undefined;
}

export async function createProcess(actor: Actor, input: NewProcess): Promise<JudgedProcess> {
  await authorizeAction(actor, 'processes', 'create');
  maxLength('pid', input.pid, 255);
  metadataRule(input.metadata);
  return unlessOwnerGone(() => startOnMachine(actor, input));
}

/** The create itself, from the machine as it is now. */
async function startOnMachine(actor: Actor, input: NewProcess): Promise<JudgedProcess> {
  const machineItem = await relatedItem(actor, 'machines', input.machineId, 'machine');
  const machineGone = ruleBroken('MACHINE_NOT_FOUND', 'machine was deleted', '/data/relationships/machine');
  // The machine's license, policy and owner, as they are now (any may be gone).
  const {
    license: licenseItem,
    policy,
    owner,
  } = await getNamedRecordItems(machineItem.accountId, {
    license: ['licenses', machineItem.licenseId],
    policy: ['policies', machineItem.policyId],
    owner: ['users', machineItem.ownerId],
  });
  // An owner deleted is none, even before its deletion has cleared the machine's link (shared/resources/users/owners.ts).
  const machine = { ...toRecord('machines', machineItem), ...(owner ? {} : { ownerId: null }) };
  // A license goes after its machines: without it, the machine's removal is under way.
  if (!licenseItem) throw machineGone;
  // Asked again now that the license is known: a user may not act on a protected one.
  await authorizeAction(actor, 'processes', 'create', { license: licenseItem });
  const timestamp = now();
  const process: ProcessRecord = {
    ...newRecord('processes', actor.scope, timestamp),
    ...underMachine(machine),
    pid: input.pid,
    metadata: input.metadata ?? {},
    lastHeartbeat: timestamp,
  };
  const tx = new Transaction();
  addProcess(
    tx,
    {
      process,
      machineEnvironmentId: machine.environmentId ?? null,
      licenseEnvironmentId: licenseItem.environmentId ?? null,
    },
    policy,
  );
  // The machine and all above it must still exist (never a process under a removal), and its owner.
  // With the owners the process inherits: changed meanwhile (licenses/owner.ts), the machine is read again.
  tx.requireState({ PK: machineItem.PK, SK: machineItem.SK }, inheritedFrom(machineItem), inheritedOwnersChanged());
  requireAncestry(tx, process, ['licenses', 'policies', 'products'], machineGone);
  requireInheritedOwner(tx, process.accountId, process.ownerId);
  await emitEvent(tx, originOf(process, actor.scope), 'process.created', processDocument(process, policy));
  await tx.commit();
  return { process, policy };
}

/**
 * Writes a new process into `tx`: in its collections and the sweeper's index (due at the end of
 * its first heartbeat), holding its pid on its machine (else 422 PID_TAKEN), counted in its
 * machine's and its license's counts within what `policy` allows (else 422
 * MACHINE_PROCESS_LIMIT_EXCEEDED). Returns the stored item.
 */
export function addProcess(tx: Transaction, placement: ProcessPlacement & { process: ProcessRecord }, policy: object | undefined): Item {
  const { process } = placement;
  const item = tx.create(
    { ...process, ...dueAttributes(dueOf(process.lastHeartbeat, heartbeatOf(policy))) },
    {
      parents: parentsOf('processes', {
        machine: process.machineId,
        license: process.licenseId,
        product: process.productId,
        owner: process.ownerId,
      }),
      unique: [
        {
          kind: PROCESS_PID_MARKER,
          value: processPidValue(process.machineId, process.pid),
          taken: ruleBroken('PID_TAKEN', 'pid has already been taken for this machine', attributePointer('pid')),
        },
      ],
      counted: processCounts(placement),
    },
  );
  boundProcesses(tx, process, limitsOf(policy));
  return item;
}

export async function retrieveProcess(actor: Actor, id: string): Promise<ProcessRecord> {
  return toRecord('processes', await authorize(actor, 'processes', id, 'read'));
}

/** PATCH /processes/<id>: its metadata, all a process has to change besides its pings (Keygen's). */
export async function updateProcess(actor: Actor, id: string, changes: { metadata?: Metadata }): Promise<JudgedProcess> {
  const item = await authorize(actor, 'processes', id, 'update');
  metadataRule(changes.metadata);
  const policy = await policyOf(toRecord('processes', item));
  const document = (process: ProcessRecord) => processDocument(process, policy);
  const process = await updateAndAnnounce('processes', item, { ...changes, updated: now() }, 'process.updated', document, actor.scope);
  return { process, policy };
}

/** Permanent: its pid is free again on its machine, and its counts go down. */
export async function deleteProcess(actor: Actor, id: string): Promise<void> {
  const item = await authorize(actor, 'processes', id, 'delete');
  const removed = toRecord('processes', item);
  const policy = await policyOf(removed);
  const tx = new Transaction();
  tx.delete(item, new RecordNotFound('processes', removed.id));
  await emitEvent(tx, originOf(removed, actor.scope), 'process.deleted', processDocument(removed, policy));
  await tx.commit();
}

/** Raised when a ping finds the process pinged (or removed) since it read it. */
class PingedMeanwhile extends Error {}

const PING_ATTEMPTS = 10;

/**
 * A ping keeps an alive process alive one more heartbeat duration from now, and moves it in the
 * sweeper's index; a dead one is not revived (422 PROCESS_HEARTBEAT_DEAD). The ping writes the
 * process as it read it: one that the sweeper removed meanwhile is gone (404), one pinged
 * meanwhile is read and judged again (409 CONFLICT if that keeps happening).
 */
export async function pingProcess(actor: Actor, id: string): Promise<JudgedProcess> {
  let item = await authorize(actor, 'processes', id, 'ping');
  const policy = await policyOf(toRecord('processes', item));
  const rules = heartbeatOf(policy);
  for (let attempt = 1; ; attempt++) {
    const process = toRecord('processes', item);
    const timestamp = now();
    if (heartbeatAt(process, rules, Date.parse(timestamp)).status === 'DEAD') {
      throw ruleBroken('PROCESS_HEARTBEAT_DEAD', 'is dead');
    }
    const tx = new Transaction();
    const pinged = toRecord('processes', recordPing(tx, item, timestamp, rules, new PingedMeanwhile()));
    await emitEvent(tx, originOf(pinged, actor.scope), 'process.heartbeat.ping', processDocument(pinged, policy));
    try {
      await tx.commit();
      return { process: pinged, policy };
    } catch (error) {
      if (!(error instanceof PingedMeanwhile)) throw error;
      if (attempt >= PING_ATTEMPTS) throw conflict('the process keeps being pinged meanwhile; retry');
      await backoff(attempt);
      const again = await getVisibleItem(actor.scope, 'processes', process.id);
      if (!again) throw new RecordNotFound('processes', process.id);
      item = again;
    }
  }
}

/**
 * Writes a ping at `at` (ISO 8601) into `tx`: the process's heartbeat, and its place in the
 * sweeper's index, moved to the end of its new heartbeat; only while its heartbeat is the one
 * read (else `changed`). Returns the item as written.
 */
export function recordPing(tx: Transaction, item: Item, at: string, rules: Heartbeat, changed: Error): Item {
  return tx.update(
    item,
    { lastHeartbeat: at, updated: at, ...dueChanges(dueOf(at, rules)) },
    { missing: changed, unchanged: { lastHeartbeat: item.lastHeartbeat }, conflict: changed },
  );
}

/** Filters in order of selectivity: a machine's processes, a license's, a user's, a product's. */
const FILTERS: readonly Filter<'processes'>[] = [
  { params: ['machine'], parent: 'machine' },
  { params: ['license'], parent: 'license' },
  { params: ['owner', 'user'], parent: 'owner' },
  { params: ['product'], parent: 'product' },
];

export async function listProcesses(actor: Actor, filters: FilterValues, page: PageRequest): Promise<Page<ProcessRecord>> {
  await authorizeAction(actor, 'processes', 'list');
  return filteredList(actor.scope, 'processes', FILTERS, filters, [restriction(actor, 'processes')], page);
}

/** GET /machines/<id>/processes: whoever sees a machine sees all its processes; the machine named by id or fingerprint. */
export async function listMachineProcesses(actor: Actor, machineId: string, filters: FilterValues, page: PageRequest) {
  const machine = await authorize(actor, 'machines', await machineNamed(actor, machineId), 'read');
  await authorizeAction(actor, 'processes', 'list');
  return filteredList(actor.scope, 'processes', FILTERS, filters, [{ machineId: machine.id }], page);
}
