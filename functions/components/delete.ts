import { components } from '#shared/api/components.ts';
import { deleteComponent } from '#shared/domain/components/service.ts';
import { noContent } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(components.delete, async ({ actor, params }) => {
  await deleteComponent(actor, params.id);
  return noContent();
});
