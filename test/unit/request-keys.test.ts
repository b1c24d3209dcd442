/**
 * What the pipeline reads ahead of a handler (shared/http/request-keys.ts): the webhook
 * subscriptions only for a route that emits events, as its declaration says, whatever its method.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestKeys } from '#shared/http/request-keys.ts';
import { LICENSE_KEY_MARKER, licenseKeyValue } from '#shared/resources/licenses/entity.ts';
import { routes } from '#shared/routes.ts';
import { subscriptionsKey, uniqueKey } from '#shared/store/keys.ts';

const accountId = randomUUID();
const id = randomUUID();

const routeOf = (operation: string) => {
  const route = routes.find((candidate) => candidate.operation === operation);
  if (!route) throw new Error(`no route ${operation}`);
  return route;
};

const eventOf = (operation: string) => {
  const route = routeOf(operation);
  return {
    routeKey: `${route.method} ${route.path}`,
    rawPath: route.path.replace('{account}', accountId).replace('{id}', id),
    rawQueryString: '',
    headers: {},
    pathParameters: { account: accountId, ...(route.path.includes('{id}') ? { id } : {}) },
  } as unknown as APIGatewayProxyEventV2;
};

const readsSubscriptions = (operation: string) =>
  requestKeys(eventOf(operation), undefined, { absent: true }, routeOf(operation)).some(
    (key) => key.PK === subscriptionsKey(accountId, null).PK,
  );

describe('the read-ahead of webhook subscriptions', () => {
  it('comes with every route that emits events, and only with those', () => {
    for (const route of routes.filter((candidate) => candidate.path.includes('{account}'))) {
      expect(readsSubscriptions(route.operation), route.operation).toBe(route.access.includes('events:emit'));
    }
  });

  it('comes with the changes and actions that announce themselves, not with reads or changes that emit nothing', () => {
    // Pinned by name, apart from the declarations the rule above reads.
    for (const operation of ['users.create', 'licenses.validateKey', 'machines.ping', 'licenses.suspend', 'webhookEvents.retry']) {
      expect(readsSubscriptions(operation), operation).toBe(true);
    }
    for (const operation of ['users.list', 'me.retrieve', 'passwords.request', 'webhookEvents.delete', 'machines.processes']) {
      expect(readsSubscriptions(operation), operation).toBe(false);
    }
  });

  it('comes with a GET that emits (a license file checked out), not with a GET that reads', () => {
    expect(readsSubscriptions('licenses.checkOutFile')).toBe(true);
    expect(readsSubscriptions('licenses.retrieve')).toBe(false);
  });
});

describe("the read-ahead of validate-key's license key", () => {
  const keysFor = (operation: string, json: unknown) => requestKeys(eventOf(operation), undefined, { json } as never, routeOf(operation));
  const marker = (key: string) => uniqueKey(accountId, LICENSE_KEY_MARKER, licenseKeyValue(key));

  it("names the marker of the key in the body's meta, with the account", () => {
    const keys = keysFor('licenses.validateKey', { meta: { key: 'ABCD-1234' } });
    expect(keys).toContainEqual(marker('ABCD-1234'));
  });

  it('names none for a key no license can hold, a key that is no string, or another route', () => {
    const markers = (keys: { PK: string }[]) => keys.filter((key) => key.PK.includes('#UNIQUE#LICENSE_KEY#'));
    expect(markers(keysFor('licenses.validateKey', { meta: { key: '' } }))).toEqual([]);
    expect(markers(keysFor('licenses.validateKey', { meta: { key: 'x'.repeat(100_000) } }))).toEqual([]);
    expect(markers(keysFor('licenses.validateKey', { meta: { key: 42 } }))).toEqual([]);
    expect(markers(keysFor('licenses.validateKey', null))).toEqual([]);
    expect(markers(keysFor('licenses.validate', { meta: { key: 'ABCD-1234' } }))).toEqual([]);
  });
});
