/**
 * A license's users (docs/rules.md §18.11), judged on the license with the license's reach:
 *
 *   list     whoever reaches the license (its product, the license itself, its owner, a user
 *            attached to it) and holds `user.read`
 *   attach   administrators, the license's product and its owner (not on a protected license),
 *   detach   as Keygen's policy of a license's users has it
 */
import { definePolicy, isAdministrator, type Verdict } from '../../auth/policies/policy.ts';
import { licensePolicy } from '../licenses/policy.ts';

export const licenseUserPolicy = definePolicy({
  permissions: { list: 'user.read', attach: 'license.users.attach', detach: 'license.users.detach' },
  grants: { user: ['license.users.attach', 'license.users.detach'], product: ['license.users.attach', 'license.users.detach'] },
  writes: new Set(['attach', 'detach']),
  reaches: licensePolicy.reaches,
  may(actor, action, record): Verdict {
    const { bearer } = actor;
    if (action === 'list' || isAdministrator(bearer) || bearer.kind === 'product') return true;
    if (bearer.kind === 'user' && record?.ownerId === bearer.id) {
      return record.protected !== true || `The license is protected: only administrators and its product may ${action} its users`;
    }
    return `Only administrators, the license's product and its owner may ${action} its users`;
  },
});
