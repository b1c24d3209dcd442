/**
 * Who is calling. A bearer is the record a credential stands for (a user, an environment, a
 * product, a license), its home environment, and the permissions its credential grants.
 */
import type { RecordType } from '../store/keys.ts';
import type { BearerKind, Permission } from './permissions.ts';

/** The record types a credential may stand for. */
export type BearerType = 'users' | 'environments' | 'products' | 'licenses';

export interface Bearer {
  kind: BearerKind;
  type: BearerType;
  id: string;
  /** The environment the bearer belongs to; null is global. */
  environmentId: string | null;
  permissions: ReadonlySet<Permission>;
  /** The token the request authenticated with (absent for license-key authentication). */
  tokenId?: string;
  /** A license bearer's place in the licensing graph: the product and policy it belongs to. */
  productId?: string;
  policyId?: string;
}

/**
 * Whether a bearer at home in `home` may act in the requested environment (docs/rules.md §6.2):
 * a bearer of one environment only there; global bearers into SHARED environments, and
 * global admins into every environment.
 */
export function admits(
  requested: { id: string; isolationStrategy: 'ISOLATED' | 'SHARED' } | null,
  home: string | null,
  kind: BearerKind,
): boolean {
  if (requested === null) return home === null;
  if (home !== null) return home === requested.id;
  return kind === 'admin' || requested.isolationStrategy === 'SHARED';
}

/** What a holder of tokens acts as right now; undefined when it may not act at all (a banned user, a record that holds no tokens). */
export function kindOf(holder: { type: RecordType; status?: unknown; role?: unknown }): BearerKind | undefined {
  switch (holder.type) {
    case 'users':
      if (holder.status !== 'ACTIVE') return undefined;
      return holder.role === 'admin' ? 'admin' : 'user';
    case 'environments':
      return 'environment';
    case 'products':
      return 'product';
    case 'licenses':
      return 'license';
    default:
      return undefined;
  }
}
