import { components } from '#shared/api/components.ts';
import { componentDocument } from '#shared/domain/components/document.ts';
import { updateComponent } from '#shared/domain/components/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(components.update, async ({ actor, params, body }) =>
  ok(componentDocument(await updateComponent(actor, params.id, body.data.attributes ?? {}))),
);
