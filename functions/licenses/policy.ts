import { policies } from '#shared/api/policies.ts';
import { retrieveLicense } from '#shared/domain/licenses/service.ts';
import { policyDocument } from '#shared/domain/policies/document.ts';
import { relatedPolicy } from '#shared/domain/policies/service.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /licenses/<id>/policy */
export const handler = operation(policies.ofLicense, async ({ actor, params }) =>
  ok(policyDocument(await relatedPolicy(actor, await retrieveLicense(actor, params.id)))),
);
