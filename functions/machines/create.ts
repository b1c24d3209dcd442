import { machines } from '#shared/api/machines.ts';
import { machineDocument } from '#shared/domain/machines/document.ts';
import { createMachine } from '#shared/domain/machines/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(machines.create, async ({ actor, body: { data } }) => {
  const { license, owner, components } = data.relationships;
  const nested = components?.data.map((component) => component.attributes);
  const activated = await createMachine(actor, {
    ...data.attributes,
    licenseId: license.data.id,
    ownerId: owner?.data.id,
    components: nested,
  });
  return created(machineDocument(activated.machine, activated.policy));
});
