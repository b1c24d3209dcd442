import { components } from '#shared/api/components.ts';
import { componentDocument } from '#shared/domain/components/document.ts';
import { retrieveComponent } from '#shared/domain/components/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(components.retrieve, async ({ actor, params }) =>
  ok(componentDocument(await retrieveComponent(actor, params.id))),
);
