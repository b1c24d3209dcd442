import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { licenses } from '#shared/resources/licenses/operations.ts';
import { createLicense } from '#shared/resources/licenses/service.ts';

export const handler = operation(licenses.create, async ({ actor, body: { data } }) => {
  const { policy, owner } = data.relationships;
  return created(licenseDocument(await createLicense(actor, { ...data.attributes, policyId: policy.data.id, ownerId: owner?.data.id })));
});
