import { accountRelationship, nested, nestedOne, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { MachineRecord } from './machine.ts';

export function machineDocument(machine: MachineRecord): ResourceObject {
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
