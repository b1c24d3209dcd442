/**
 * The resource objects the API answers with, one schema per type, each in its resource's folder
 * (shared/resources/<resource>/schema.ts) as its document builder shows it (document.ts). The
 * OpenAPI description (shared/reference/openapi.ts) turns them into its `components.schemas`; the
 * HTTP tests check every answer against that description, so a document that gains, loses or
 * retypes a member fails them until its schema follows.
 *
 * Loaded by convention, as shared/routes.ts loads operations.ts: every resource of the manifest
 * that serves a JSON:API type has a schema.ts. Nothing running in a Lambda reads this module.
 */
import type { ResourceType } from '../http/declaration.ts';
import { manifest, type ResourceDefinition } from '../resources/manifest.ts';
import { namedSchemas, type ResourceObject } from './objects.ts';

export { namedSchemas };

const resources = Object.entries(manifest) as [string, ResourceDefinition][];
const judged = (resource: ResourceDefinition) => Object.keys(resource.policies ?? {});
const documents = (resource: ResourceDefinition) => resource.documents ?? [];

/** Each resource's schemas, named in the description: the types policies judge first, then the documents. */
async function resourceObjects(): Promise<Readonly<Record<ResourceType, ResourceObject>>> {
  const found: Record<string, ResourceObject> = {};
  for (const [name, resource] of resources) {
    const served = [...judged(resource), ...documents(resource)];
    if (served.length === 0) continue;
    const { schemas }: { schemas: Record<string, ResourceObject> } = await import(`../resources/${name}/schema.ts`);
    if (Object.keys(schemas).sort().join() !== [...served].sort().join()) {
      throw new Error(`shared/resources/${name}/schema.ts describes ${Object.keys(schemas).join(', ')}, not ${served.join(', ')}`);
    }
    Object.assign(found, schemas);
  }
  // Named after the pieces the modules name as they load, the judged types first, then the documents,
  // each in the manifest's order: components.schemas keeps its order as resources are added.
  for (const type of [
    ...resources.flatMap(([, resource]) => judged(resource)),
    ...resources.flatMap(([, resource]) => documents(resource)),
  ]) {
    const object = found[type] as ResourceObject;
    namedSchemas.add(object.schema, { id: object.name });
  }
  return found as Record<ResourceType, ResourceObject>;
}

export const resourceSchemas = await resourceObjects();

/** The name of a type's resource object in the description. */
export const resourceSchemaName = (type: ResourceType): string => resourceSchemas[type].name;
