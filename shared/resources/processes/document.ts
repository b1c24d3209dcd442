/**
 * Processes as answers and events show them: a process's status and interval are judged by its
 * policy as it is now, so the policies of the processes shown are read with them (one
 * BatchGetItem for a page).
 */
import { accountRelationship, nestedOne, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import { getRecordItems } from '../../store/records.ts';
import { heartbeatOf } from '../policies/heartbeat.ts';
import { heartbeatAt, type ProcessRecord } from './entity.ts';

/** A process as shown, judged by `policy` (the record or item; undefined, a policy gone: the defaults) at `at`. */
export function processDocument(process: ProcessRecord, policy: object | undefined, at: number = Date.now()): ResourceObject {
  const self = resourcePath(process.accountId, 'processes', process.id);
  return {
    id: process.id,
    type: 'processes',
    attributes: {
      pid: process.pid,
      ...heartbeatAt(process, heartbeatOf(policy), at),
      metadata: process.metadata,
      created: process.created,
      updated: process.updated,
    },
    relationships: {
      account: accountRelationship(process.accountId),
      environment: toOne(process.accountId, 'environments', process.environmentId),
      product: nestedOne(self, 'product', 'products', process.productId),
      license: nestedOne(self, 'license', 'licenses', process.licenseId),
      machine: nestedOne(self, 'machine', 'machines', process.machineId),
    },
    links: { self },
  };
}

/** The documents of `processes`: their policies are read once, together. */
export async function processDocumentsFor(processes: readonly ProcessRecord[]): Promise<(process: ProcessRecord) => ResourceObject> {
  const first = processes[0];
  if (!first) return (process) => processDocument(process, undefined);
  const ids = [...new Set(processes.map((process) => process.policyId))];
  const found = await getRecordItems(first.accountId, 'policies', ids);
  const policies = new Map(found.map((item) => [item.id, item]));
  return (process) => processDocument(process, policies.get(process.policyId));
}

/** The document of one process, with its policy read. */
export const shownProcess = async (process: ProcessRecord): Promise<ResourceObject> => (await processDocumentsFor([process]))(process);
