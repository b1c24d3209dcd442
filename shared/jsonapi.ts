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
