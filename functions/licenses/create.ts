import { licenses } from '#shared/api/licenses.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { createLicense } from '#shared/domain/licenses/service.ts';
import { created } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

export const handler = operation(licenses.create, async ({ actor, body: { data } }) => {
  const { policy, owner } = data.relationships;
  return created(licenseDocument(await createLicense(actor, { ...data.attributes, policyId: policy.data.id, ownerId: owner?.data.id })));
});
