import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { componentDocument } from '#shared/resources/components/document.ts';
import { components } from '#shared/resources/components/operations.ts';
import { retrieveComponent } from '#shared/resources/components/service.ts';

export const handler = operation(components.retrieve, async ({ actor, params }) =>
  ok(componentDocument(await retrieveComponent(actor, params.id))),
);
