import { listReply } from '#shared/http/pagination.ts';
import { operation } from '#shared/http/pipeline.ts';
import { policyDocument } from '#shared/resources/policies/document.ts';
import { policies } from '#shared/resources/policies/operations.ts';
import { listPolicies } from '#shared/resources/policies/service.ts';

export const handler = operation(policies.list, async (call) =>
  listReply(call, await listPolicies(call.actor, call.query, call.page), policyDocument),
);
