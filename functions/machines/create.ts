import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { machineDocument } from '#shared/resources/machines/document.ts';
import { machines } from '#shared/resources/machines/operations.ts';
import { createMachine } from '#shared/resources/machines/service.ts';

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
