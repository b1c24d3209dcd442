import { accountRelationship, nested, nestedOne, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import { heartbeatOf } from '../policies/heartbeat.ts';
import type { MachineRecord } from './entity.ts';
import { heartbeatAt } from './heartbeat.ts';

/**
 * A machine as shown: its heartbeat is judged by its policy as stored now (`policy`: the record
 * or item; undefined, a policy gone: the defaults). `resurrected`: the answer of the ping that
 * revived it.
 */
export function machineDocument(machine: MachineRecord, policy: object | undefined, shown: { resurrected?: boolean } = {}): ResourceObject {
  const heartbeat = heartbeatAt(machine, heartbeatOf(policy));
  if (shown.resurrected) heartbeat.heartbeatStatus = 'RESURRECTED';
  const self = resourcePath(machine.accountId, 'machines', machine.id);
  return {
    id: machine.id,
    type: 'machines',
    attributes: {
      fingerprint: machine.fingerprint,
      name: machine.name ?? null,
      hostname: machine.hostname ?? null,
      platform: machine.platform ?? null,
      ip: machine.ip ?? null,
      cores: machine.cores ?? null,
      memory: machine.memory ?? null,
      disk: machine.disk ?? null,
      lastCheckOut: machine.lastCheckOut ?? null,
      ...heartbeat,
      metadata: machine.metadata,
      created: machine.created,
      updated: machine.updated,
    },
    relationships: {
      account: accountRelationship(machine.accountId),
      environment: toOne(machine.accountId, 'environments', machine.environmentId),
      product: toOne(machine.accountId, 'products', machine.productId),
      license: nestedOne(self, 'license', 'licenses', machine.licenseId),
      owner: toOne(machine.accountId, 'users', machine.ownerId),
      components: nested(self, 'components'),
    },
    links: { self },
  };
}
