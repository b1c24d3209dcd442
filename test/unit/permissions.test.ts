/**
 * The permissions and what each kind of bearer holds, derived from the policies the manifest lists
 * (shared/auth/permissions.ts): the written-out `Permission` type names exactly the policies'
 * permissions, each bearer holds what it held when the lists were written by hand, and no order
 * of loading the modules finds one of them uninitialised.
 */
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { type BearerKind, heldBy, PERMISSIONS, type Permission } from '#shared/auth/permissions.ts';
import { POLICIES, type PolicyType } from '#shared/auth/policies/index.ts';
import type { PermissionOf, Policy } from '#shared/auth/policies/policy.ts';
import { manifest } from '#shared/resources/manifest.ts';

const LICENSEE = [
  'product.read',
  'policy.read',
  'license.read',
  'license.validate',
  'entitlement.read',
  'license.check-out',
  'license.usage.increment',
  'license.check-in',
  'machine.create',
  'machine.read',
  'machine.delete',
  'machine.check-out',
  'machine.heartbeat.ping',
  'component.create',
  'component.read',
  'component.delete',
  'process.create',
  'process.read',
  'process.update',
  'process.delete',
  'process.heartbeat.ping',
];

/** What each kind of bearer held, global or in an environment, when these were lists of their own. */
const HELD: Record<BearerKind, readonly string[]> = {
  admin: PERMISSIONS,
  environment: PERMISSIONS.filter((p) => !p.startsWith('account.') && !p.startsWith('environment.')),
  user: [
    'user.read',
    'user.update',
    'user.password.update',
    'user.second-factors.read',
    'user.second-factors.create',
    'user.second-factors.update',
    'user.second-factors.delete',
    'token.generate',
    'token.read',
    'token.regenerate',
    'token.revoke',
    ...LICENSEE,
    'license.renew',
    'license.revoke',
    'license.policy.update',
    'license.users.attach',
    'license.users.detach',
    'machine.owner.update',
  ],
  product: [
    'token.read',
    'token.regenerate',
    'token.revoke',
    ...PERMISSIONS.filter(
      (p) =>
        ['policy.', 'key.', 'license.', 'machine.', 'component.', 'process.'].some((prefix) => p.startsWith(prefix)) ||
        ['product.read', 'product.update', 'entitlement.read'].includes(p),
    ),
  ],
  license: ['token.read', 'token.regenerate', 'token.revoke', ...LICENSEE],
};

const sorted = (permissions: Iterable<string>) => [...permissions].sort();

describe('the permissions', () => {
  it('are written out as exactly those the policies name', () => {
    // The type is the check that can fail (tsc, in npm test): the hand-written union against what
    // the policies name. PERMISSIONS is derived from the policies, so the runtime half below only
    // keeps the derivation honest (every permission named, none made up).
    expectTypeOf<Permission>().toEqualTypeOf<PermissionOf<(typeof POLICIES)[PolicyType]>>();
    const policies: Policy[] = Object.values(POLICIES);
    const named = policies.flatMap((policy) => [...(policy.carried ?? []), ...Object.values(policy.permissions)]);
    expect(sorted(PERMISSIONS)).toEqual(sorted(new Set(named)));
  });

  it('are each listed once, grouped by resource in the order the manifest first names it', () => {
    expect(new Set(PERMISSIONS).size).toBe(PERMISSIONS.length);
    expect(PERMISSIONS).toHaveLength(87);
    const resources = PERMISSIONS.map((permission) => permission.slice(0, permission.indexOf('.')));
    const runs = resources.filter((resource, index) => resource !== resources[index - 1]);
    expect(runs).toEqual([
      'account',
      'user',
      'token',
      'environment',
      'product',
      'policy',
      'key',
      'license',
      'machine',
      'component',
      'process',
      'entitlement',
      'webhook-endpoint',
      'webhook-event',
    ]);
  });

  it('are held by each kind of bearer as they were', () => {
    for (const kind of Object.keys(HELD) as BearerKind[]) {
      expect(sorted(heldBy(kind, null)), kind).toEqual(sorted(HELD[kind]));
      // An admin living inside an environment holds what can be done inside it.
      const inside = kind === 'admin' ? HELD.environment : HELD[kind];
      expect(sorted(heldBy(kind, 'e0000000-0000-4000-8000-000000000001')), kind).toEqual(sorted(inside));
    }
  });

  it('are kept by the account-level policies for the account’s own admins', () => {
    const accountLevel = Object.values(POLICIES as Record<string, Policy>).filter((policy) => policy.accountLevel);
    expect(accountLevel).toHaveLength(2);
    for (const policy of accountLevel) {
      for (const permission of Object.values(policy.permissions)) expect(heldBy('environment', null)).not.toContain(permission);
    }
  });

  // A policy importing what reads the manifest would load the manifest, and the policies it lists,
  // before its own body: the first to read it would find it uninitialised.
  it('load in any order: a policy first, or the permissions first', async () => {
    const first = [
      ...Object.keys(manifest)
        .filter((name) => 'policies' in manifest[name as keyof typeof manifest])
        .map((name) => `#shared/resources/${name}/policy.ts`),
      '#shared/auth/permissions.ts',
      '#shared/auth/policies/index.ts',
    ];
    for (const module of first) {
      vi.resetModules();
      await expect(import(module), module).resolves.toBeDefined();
      const { heldBy: held } = await import('#shared/auth/held.ts');
      const { heldBy: derived } = await import('#shared/auth/permissions.ts');
      expect(held('license', null), module).toEqual(derived('license', null));
    }
  });
});
