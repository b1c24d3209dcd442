import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { components } from '#shared/resources/components/operations.ts';
import { deleteComponent } from '#shared/resources/components/service.ts';

export const handler = operation(components.delete, async ({ actor, params }) => {
  await deleteComponent(actor, params.id);
  return noContent();
});
