import { machines } from '#shared/api/machines.ts';
import { createMachine } from '#shared/domain/machines/service.ts';
import { shownMachine } from '#shared/domain/machines/shown.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(machines.create, async ({ actor, body: { data } }) => {
  const { license, owner, components } = data.relationships;
  const nested = components?.data.map((component) => component.attributes);
  return created(
    await shownMachine(
      await createMachine(actor, { ...data.attributes, licenseId: license.data.id, ownerId: owner?.data.id, components: nested }),
    ),
  );
});
