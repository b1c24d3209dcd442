/**
 * Tokens generated for a record that acts as a bearer: `POST /environments/<id>/tokens`,
 * `POST /products/<id>/tokens` and `POST /licenses/<id>/tokens`, each 200 with the value shown
 * once. The optional body names the token, narrows its permissions and sets an expiry.
 */

import type { Actor } from '../../auth/actor.ts';
import { type BearerType, kindOf } from '../../auth/bearer.ts';
import { normalisePermissions } from '../../auth/permissions.ts';
import { tokenHome } from '../../auth/policies/policy.ts';
import { ruleBroken } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import { requireAncestry } from '../../licensing/graph.ts';
import { RecordNotFound } from '../../store/errors.ts';
import type { RecordOf } from '../../store/record-types.ts';
import { type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { attributePointer, maxLength } from '../rules.ts';
import { tokenDocument } from './document.ts';
import type { TokenKind } from './entity.ts';
import { addToken, requireStanding } from './service.ts';

/** What the request asks of the token; all optional. */
export interface TokenRequest {
  name?: string | null;
  expiry?: string | null;
  /** Permissions to narrow the token to; every permission of the holder (`*`) when absent. */
  permissions?: readonly string[];
}

/**
 * A token standing for `holder`, living in its home (`tokenHome`: the holder's own environment,
 * or for an environment token the environment itself). The holder's policy has judged, with the
 * permissions asked, that the bearer generating it holds all it carries (`tokenGrant`): `*` is
 * every permission of the holder, so a narrowed credential gives narrowed tokens only.
 */
export async function generateTokenFor(actor: Actor, holder: StoredItem<RecordOf<BearerType>>, kind: TokenKind, attributes: TokenRequest) {
  const home = tokenHome(holder);
  maxLength('name', attributes.name, 255);
  const requested = attributes.permissions ?? ['*'];
  const holderKind = kindOf(holder);
  // Only a record that may act as a bearer (an environment, a product, a license) is given tokens here.
  if (!holderKind) throw new Error(`A ${String(holder.type)} holds no tokens`);
  const permissions = normalisePermissions(requested);
  let expiry: string | null = null;
  if (attributes.expiry != null) {
    const at = Date.parse(attributes.expiry);
    if (Number.isNaN(at) || at <= Date.now()) {
      throw ruleBroken('EXPIRY_INVALID', 'expiry must be a future ISO 8601 time', attributePointer('expiry'));
    }
    expiry = new Date(at).toISOString();
  }
  const record = toRecord(holder.type, holder);
  const tx = new Transaction();
  const result = addToken(tx, {
    holder: record,
    environmentId: home,
    kind,
    name: attributes.name ?? null,
    expiry,
    permissions,
  });
  const gone = new RecordNotFound(holder.type, holder.id);
  requireStanding(tx, record, gone);
  // A license's policy and product too: never a token under a removal (shared/licensing/removal.ts).
  if (holder.type === 'licenses') requireAncestry(tx, record, ['policies', 'products'], gone);
  await emitEvent(tx, originOf(result.token, actor.scope), 'token.generated', tokenDocument(result.token));
  await tx.commit();
  return result;
}
