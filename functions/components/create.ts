import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { componentDocument } from '#shared/resources/components/document.ts';
import { components } from '#shared/resources/components/operations.ts';
import { createComponent } from '#shared/resources/components/service.ts';

export const handler = operation(components.create, async ({ actor, body: { data } }) =>
  created(componentDocument(await createComponent(actor, { ...data.attributes, machineId: data.relationships.machine.data.id }))),
);
