import { components } from '#shared/api/components.ts';
import { componentDocument } from '#shared/domain/components/document.ts';
import { createComponent } from '#shared/domain/components/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(components.create, async ({ actor, body: { data } }) =>
  created(componentDocument(await createComponent(actor, { ...data.attributes, machineId: data.relationships.machine.data.id }))),
);
