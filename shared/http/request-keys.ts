/**
 * What a request will read first, named before anything is read, so the pipeline fetches it
 * all in one BatchGetItem (shared/store/read-ahead.ts):
 *
 *   the account            by UUID, by the account last found under its slug, or by its slug's marker
 *   the token lookup       keyed by the token's digest alone
 *   the environment        by UUID, or its code's marker
 *   the record of the path /<type>/{id}/... names one
 *   related records        those a create body's relationships name (a machine's license...)
 *   a list's counters      GET /<type>: the collection's counters (the environment's and the global one)
 *   webhook subscriptions  a route that emits webhook events (the route table's `events:emit`,
 *                          a GET check-out too): whom to tell
 *   what the body names    the declaration's `readAhead` (validate-key: its `meta.key`'s marker, which
 *                          names the license, its policy and its owner)
 *
 * Behind a slug, account-scoped keys are named for the account this container last found under
 * it (a slug it has not met yet reads the rest as it goes); behind an environment code, no
 * environment-scoped key. A key read ahead in vain
 * (a list filtered by a parent counts another collection) costs half a read unit, no request.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { accountIdGuess, accountKeyFor } from '../resources/accounts/entity.ts';
import { environmentKeyFor } from '../resources/environments/entity.ts';
import {
  accountKey,
  collectionName,
  collectionPartition,
  counterKey,
  type Key,
  PREFIXES,
  type RecordType,
  recordKey,
  subscriptionsKey,
} from '../store/keys.ts';
import { isUuid } from '../store/records.ts';
import type { Body } from './body.ts';
import type { Declaration } from './declaration.ts';

/** The Service-Environment header, else the `environment` query parameter (ignored when a header names one). */
export function requestedEnvironment(event: APIGatewayProxyEventV2): string | undefined {
  // Only `environment` is read here; the rest of the query is parsed after authentication.
  return environmentHeader(event) ?? new URLSearchParams(event.rawQueryString ?? '').get('environment') ?? undefined;
}

/** The environment the request's headers name: Service-Environment, else its alias Keygen-Environment. */
export function environmentHeader(event: APIGatewayProxyEventV2): string | undefined {
  const headers = event.headers ?? {};
  return headers['service-environment'] ?? headers['keygen-environment'];
}

/**
 * The alias `Keygen-Environment` (accepted so that Keygen's SDKs work unchanged) when the request
 * also sends `Service-Environment` spelt otherwise: the two must then name the same environment
 * (one by id, the other by code, say), never two.
 */
export function secondEnvironmentHeader(event: APIGatewayProxyEventV2): string | undefined {
  const ours = event.headers?.['service-environment'];
  const alias = event.headers?.['keygen-environment'];
  return ours !== undefined && alias !== undefined && ours.trim().toLowerCase() !== alias.trim().toLowerCase() ? alias.trim() : undefined;
}

/** At most this many relationships of a body are read ahead (a create names one to three). */
const RELATIONSHIPS_READ_AHEAD = 4;

export function requestKeys(
  event: APIGatewayProxyEventV2,
  token: Key | undefined,
  body: Body,
  declaration: Pick<Declaration, 'access' | 'readAhead'>,
): Key[] {
  const given = event.pathParameters?.account ?? '';
  // Behind a slug, the account this container last found under it, whose item says whether it
  // still holds the slug (findAccount); else the slug's marker, and nothing account-scoped yet.
  const accountId = accountIdGuess(given);
  const keys = [accountId === undefined ? accountKeyFor(given) : accountKey(accountId), token].filter(
    (key): key is Key => key !== undefined,
  );
  if (accountId === undefined) return keys;

  const environment = requestedEnvironment(event)?.trim();
  /** The request's environment id (null: global), or undefined while only its code is known. */
  let environmentId: string | null | undefined = null;
  if (environment) {
    const key = environmentKeyFor(accountId, environment);
    if (key) keys.push(key);
    environmentId = isUuid(environment) ? environment.toLowerCase() : undefined;
  }

  keys.push(...related(accountId, body), ...('json' in body && declaration.readAhead ? declaration.readAhead(accountId, body.json) : []));
  // A route whose changes emit webhook events reads the subscriptions.
  if (environmentId !== undefined && declaration.access.includes('events:emit')) keys.push(subscriptionsKey(accountId, environmentId));
  const [method = '', path = ''] = (event.routeKey ?? '').split(' ');
  const segments = path.split('/').slice(4); // after /v1/accounts/{account}
  const type = segments[0] as RecordType;
  if (!type || !Object.hasOwn(PREFIXES, type)) return keys;
  const id = event.pathParameters?.id;
  if (segments[1] === '{id}' && id && isUuid(id)) keys.push(recordKey(accountId, type, id.toLowerCase()));

  if (environmentId === undefined) return keys;
  if (method === 'GET' && segments.length === 1) {
    // A SHARED environment also reads the global collection; an ISOLATED one leaves that key unused.
    for (const readable of environmentId === null ? [null] : [environmentId, null]) {
      keys.push(counterKey(collectionPartition(accountId, readable, collectionName(type))));
    }
  }
  return keys;
}

/** The records a JSON:API body's relationships name: `data.relationships.<name>.data = {type, id}`. */
function related(accountId: string, body: Body): Key[] {
  const relationships = 'json' in body ? (body.json as { data?: { relationships?: unknown } } | null)?.data?.relationships : undefined;
  if (!relationships || typeof relationships !== 'object') return [];
  return Object.values(relationships)
    .map((relationship) => (relationship as { data?: { type?: unknown; id?: unknown } } | null)?.data)
    .filter(
      (ref): ref is { type: RecordType; id: string } =>
        typeof ref?.type === 'string' && Object.hasOwn(PREFIXES, ref.type) && typeof ref.id === 'string' && isUuid(ref.id),
    )
    .slice(0, RELATIONSHIPS_READ_AHEAD)
    .map((ref) => recordKey(accountId, ref.type, ref.id.toLowerCase()));
}
