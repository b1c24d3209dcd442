/**
 * The manifest (shared/resources/manifest.ts) and the folders it names: what the route table,
 * the policy registry and the event kinds are derived from.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { POLICIES } from '#shared/auth/policies/index.ts';
import { eventKinds } from '#shared/events/kinds.ts';
import type { Environment } from '#shared/resources/environments/entity.ts';
import type { LicenseRecord } from '#shared/resources/licenses/entity.ts';
import { manifest } from '#shared/resources/manifest.ts';
import type { WebhookEventRecord } from '#shared/resources/webhook-events/entity.ts';
import { routes } from '#shared/routes.ts';
import { PREFIXES, type RecordType } from '#shared/store/keys.ts';
import type { RecordOf, RecordTypes } from '#shared/store/record-types.ts';
import { loadedBy } from '../support/imports.ts';

const RESOURCES = new URL('../../shared/resources/', import.meta.url);
const folders = readdirSync(RESOURCES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe('the manifest', () => {
  it('lists every folder of shared/resources, and each has its operations', () => {
    expect(Object.keys(manifest).sort()).toEqual([...folders].sort());
    for (const name of folders) expect(existsSync(new URL(`${name}/operations.ts`, RESOURCES)), name).toBe(true);
  });

  it("gives the route table every resource's operations, each handled by a module that exists", () => {
    const operations = routes.map((route) => route.operation);
    expect(new Set(operations).size).toBe(operations.length);
    for (const route of routes) expect(existsSync(new URL(`../../${route.handler.module}`, import.meta.url)), route.operation).toBe(true);
    expect(operations).toContain('licenses.validateKey');
    expect(operations).toContain('webhookEvents.retry');
  });

  it('has a key prefix for every record type its resources judge (the key layout, shared/store/keys.ts)', () => {
    // The account is the one resource whose items are keyed apart (ACCOUNT#<id>).
    const judged = Object.entries(manifest).flatMap(([name, resource]) =>
      'policies' in resource && name in resource.policies && name !== 'accounts' ? [name] : [],
    );
    for (const type of judged) expect(Object.keys(PREFIXES), `a prefix for ${type}`).toContain(type);
  });

  it("names the record of every type the store keeps, each its entity's", () => {
    // Types alone (tsc, in npm test): a type left out, or a record that came out as any, fails.
    expectTypeOf<keyof RecordTypes>().toEqualTypeOf<Exclude<RecordType, 'webhook-kinds'>>();
    expectTypeOf<RecordOf<'licenses'>>().toEqualTypeOf<LicenseRecord>();
    expectTypeOf<RecordOf<'environments'>>().toEqualTypeOf<Environment>();
    expectTypeOf<RecordOf<'webhook-events'>>().toEqualTypeOf<WebhookEventRecord>();
    const stored = Object.values(manifest).flatMap((resource) => ('stores' in resource ? Object.keys(resource.stores) : []));
    expect(stored.sort()).toEqual(
      Object.keys(PREFIXES)
        .filter((type) => type !== 'webhook-kinds')
        .sort(),
    );
  });

  it('gives the policy registry each policy once', () => {
    const declared = Object.values(manifest).flatMap((resource) => ('policies' in resource ? Object.keys(resource.policies) : []));
    expect(new Set(declared).size).toBe(declared.length);
    expect(Object.keys(POLICIES).sort()).toEqual([...declared].sort());
  });

  it('gives each kind of webhook event once, named `<singular type>.<what happened>` for a type the API serves', () => {
    const kinds = eventKinds();
    const served = [
      ...Object.keys(POLICIES),
      ...Object.values(manifest).flatMap((resource) => ('documents' in resource ? resource.documents : [])),
    ];
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(kinds).toContain('license.validation.succeeded');
    const plural = (singular: string) =>
      /[^aeiou]y$/.test(singular) ? `${singular.slice(0, -1)}ies` : singular.endsWith('s') ? `${singular}es` : `${singular}s`;
    for (const kind of kinds) {
      expect(kind).toMatch(/^[a-z][a-z-]*\.[a-z][a-z.-]*$/);
      expect(served, kind).toContain(plural(kind.split('.')[0] ?? ''));
    }
  });

  it("keeps each resource's events.ts free of imports: the manifest is read while the modules that import it load", () => {
    for (const name of folders) {
      const file = new URL(`${name}/events.ts`, RESOURCES);
      if (existsSync(file)) expect(readFileSync(file, 'utf8'), name).not.toMatch(/^import /m);
    }
  });

  it('reaches, through what its modules import, no module that imports it back', () => {
    // A module read while it is still loading throws (a binding before its initialisation): the
    // registries derived from the manifest read it on first use, so nothing it imports may need it.
    const reached = loadedBy('shared/resources/manifest.ts');
    expect(reached.size).toBeGreaterThan(20);
    // The reader follows imports: the policy registry reaches the manifest it is derived from.
    expect(loadedBy('shared/auth/policies/index.ts').has('shared/resources/manifest.ts')).toBe(true);
    expect(reached.has('shared/resources/manifest.ts')).toBe(false);
  });
});
