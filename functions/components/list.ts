import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { componentDocument } from '#shared/resources/components/document.ts';
import { components } from '#shared/resources/components/operations.ts';
import { listComponents } from '#shared/resources/components/service.ts';

export const handler = operation(components.list, async (call) =>
  listReply(call, await listComponents(call.actor, call.query, call.page), componentDocument),
);
