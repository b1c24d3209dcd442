import { policies } from '#shared/api/policies.ts';
import { policyDocument } from '#shared/domain/policies/document.ts';
import { listPolicies } from '#shared/domain/policies/service.ts';
import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(policies.list, async (call) =>
  listReply(call, await listPolicies(call.actor, call.query, call.page), policyDocument),
);
