import { components } from '#shared/api/components.ts';
import { componentDocument } from '#shared/domain/components/document.ts';
import { listComponents } from '#shared/domain/components/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(components.list, async (call) =>
  listReply(call, await listComponents(call.actor, call.query, call.page), componentDocument),
);
