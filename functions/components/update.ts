import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { componentDocument } from '#shared/resources/components/document.ts';
import { components } from '#shared/resources/components/operations.ts';
import { updateComponent } from '#shared/resources/components/service.ts';

export const handler = operation(components.update, async ({ actor, params, body }) =>
  ok(componentDocument(await updateComponent(actor, params.id, body.data.attributes ?? {}))),
);
