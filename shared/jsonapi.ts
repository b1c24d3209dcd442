/**
 * JSON:API resource objects, as every record is shown: in the API's answers and in webhook
 * payloads. `links.self` and relationships' `links.related` name the account by id, so they keep
 * working when a slug changes.
 */
export interface ResourceObject {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, RelationshipObject>;
  /** `related` for a join that has no path of its own (a policy's or license's attachment of an entitlement). */
  links: { self: string } | { related: string };
  meta?: Record<string, unknown>;
}

export interface RelationshipObject {
  links?: { related: string };
  data?: { type: string; id: string } | null;
}

export const accountPath = (accountId: string) => `/v1/accounts/${accountId}`;

export const resourcePath = (accountId: string, type: string, id: string) => `${accountPath(accountId)}/${type}/${id}`;

/** A to-one relationship whose related link is the related record's own path. */
export function toOne(accountId: string, type: string, id: string | null | undefined): RelationshipObject {
  if (!id) return { data: null };
  return { links: { related: resourcePath(accountId, type, id) }, data: { type, id } };
}

/** A relationship served under the owning record's path, e.g. /users/<id>/tokens. */
export const nested = (selfPath: string, name: string): RelationshipObject => ({ links: { related: `${selfPath}/${name}` } });

/** A to-one relationship served under the owning record's path, e.g. /components/<id>/machine. */
export const nestedOne = (selfPath: string, name: string, type: string, id: string | null | undefined): RelationshipObject => ({
  links: { related: `${selfPath}/${name}` },
  data: id ? { type, id } : null,
});

export const accountRelationship = (accountId: string): RelationshipObject => ({
  links: { related: accountPath(accountId) },
  data: { type: 'accounts', id: accountId },
});

/**
 * A resource's links as an answer gives them (docs/rules.md §9). A link resolves when followed
 * with the same credential and headers; the `environment` query parameter is the one part of
 * the request the link itself can carry. So a record of an environment other than the one the
 * request's headers select (`headerEnvironmentId`, null when they select none) names its
 * environment in each of its links — its own path, the paths under it and its related records,
 * which live in its environment or are global records it sees — as `?environment=<id>`. Links to
 * the account and its environments, read alike from every environment, stay as they are; so do
 * a global record's (the global environment has no name to give).
 */
export function linkedFrom<R extends Pick<ResourceObject, 'relationships'> & { links?: ResourceObject['links'] }>(
  resource: R,
  headerEnvironmentId: string | null,
): R {
  const home = resource.relationships.environment?.data?.id;
  if (home === undefined || home === headerEnvironmentId) return resource;
  const qualify = (path: string) => (ACCOUNT_LEVEL.test(path) ? path : `${path}${path.includes('?') ? '&' : '?'}environment=${home}`);
  const relationships = Object.fromEntries(
    Object.entries(resource.relationships).map(([name, relationship]) => [
      name,
      relationship.links ? { ...relationship, links: { related: qualify(relationship.links.related) } } : relationship,
    ]),
  );
  const links =
    resource.links && ('self' in resource.links ? { self: qualify(resource.links.self) } : { related: qualify(resource.links.related) });
  return { ...resource, relationships, ...(links ? { links } : {}) };
}

/** The account's path and its environments': outside every environment. */
const ACCOUNT_LEVEL = /^\/v1\/accounts\/[^/?]+(?:\/environments(?:[/?].*)?)?$/;
