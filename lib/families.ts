/**
 * How the API's operations are grouped into route families, each deployed as a nested stack of
 * its own: a family is the first part of an operation's name (`licenses.validateKey` →
 * `licenses`), so a route with a new resource name gets a new family, and adding routes needs
 * nothing here.
 *
 * A few small families share a nested stack with a related one. An operation that changes family
 * once deployed has its route re-created in another stack while the old one still holds its key,
 * which API Gateway refuses (docs/operations.md, "Stack layout"): an entry below is added before
 * its family's first route is deployed, and never changed.
 */
const sharedFamilies: ReadonlyMap<string, string> = new Map([
  // Endpoints and the events delivered to them are one feature, and one page of the dashboard.
  ['webhookEndpoints', 'webhooks'],
  ['webhookEvents', 'webhooks'],
  // Requesting a password reset and answering its link are about users.
  ['passwords', 'users'],
  // Whom a credential stands for (GET /me) is the tokens' question.
  ['me', 'tokens'],
  // The answers that touch no data: the API's description, its page, and the 404 for unmatched requests.
  ['openapi', 'reference'],
  ['notFound', 'reference'],
]);

/** The family an operation belongs to: `licenses.validateKey` → `licenses`, `webhookEvents.retry` → `webhooks`. */
export function familyOf(operation: string): string {
  const [resource] = operation.split('.', 1);
  return sharedFamilies.get(resource) ?? resource;
}

/** Entries grouped by family, in the order each family first appears. */
export function groupByFamily<Entry extends { operation: string }>(entries: readonly Entry[]): Map<string, Entry[]> {
  const families = new Map<string, Entry[]>();
  for (const entry of entries) {
    const family = familyOf(entry.operation);
    families.set(family, [...(families.get(family) ?? []), entry]);
  }
  return families;
}
