import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { retrieveLicense } from '#shared/resources/licenses/service.ts';
import { policyDocument } from '#shared/resources/policies/document.ts';
import { policies } from '#shared/resources/policies/operations.ts';
import { relatedPolicy } from '#shared/resources/policies/service.ts';

/** GET /licenses/<id>/policy */
export const handler = operation(policies.ofLicense, async ({ actor, params }) =>
  ok(policyDocument(await relatedPolicy(actor, await retrieveLicense(actor, params.id)))),
);
