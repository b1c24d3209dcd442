/**
 * What a kind of bearer holds at most (shared/auth/permissions.ts's `heldBy`), and a credential's
 * permissions from it, for authentication and for the policies that compare a credential with it
 * (what a token or a role would carry): a license's key is shown, and webhooks are managed, only by
 * a credential holding all that one would give. permissions.ts derives it from the policies the
 * manifest lists, so a policy importing it would load the manifest, and the other policies with
 * it, before its own body: one of them reading it would find it uninitialised. permissions.ts
 * supplies it here as it loads; authentication and the policy registry load it.
 */
import type { BearerKind, Permission } from './permissions.ts';

type HeldBy = (kind: BearerKind, home: string | null) => readonly Permission[];

let supplied: HeldBy | undefined;

export const supplyHeldBy = (heldBy: HeldBy): void => {
  supplied = heldBy;
};

export function heldBy(kind: BearerKind, home: string | null): readonly Permission[] {
  if (!supplied) throw new Error('shared/auth/permissions.ts is not loaded: what bearers hold is unknown');
  return supplied(kind, home);
}

/** A credential's permissions: the ones it was given (`*`: all) among those its bearer holds. */
export function effectivePermissions(kind: BearerKind, home: string | null, granted: readonly string[]): ReadonlySet<Permission> {
  const held = heldBy(kind, home);
  if (granted.includes('*')) return new Set(held);
  return new Set(held.filter((permission) => granted.includes(permission)));
}
