/**
 * Tokens of product and license bearers: `POST /products/<id>/tokens` and
 * `POST /licenses/<id>/tokens`, 200 with the value shown once (as environment tokens).
 */
import { emitEvent } from '../../events/emit.ts';
import { tokenDocument } from '../tokens/document.ts';
import { z } from 'zod';
import { unknownPermissions } from '../../auth/permissions.ts';
import { parseBody, resourceDocument } from '../../http/body.ts';
import { unprocessable } from '../../http/errors.ts';
import { RecordNotFound } from '../../store/errors.ts';
import type { RecordType } from '../../store/keys.ts';
import type { Item } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { attributePointer, maxLength } from '../rules.ts';
import { addToken } from '../tokens/service.ts';
import type { TokenKind } from '../tokens/token.ts';
import type { BearerContext } from './access.ts';

const tokenBody = z.union([
  z.undefined(),
  resourceDocument('tokens', {
    name: z.string().nullable().optional(),
    expiry: z.string().nullable().optional(),
    permissions: z.array(z.string()).optional(),
  }),
]);

/** A token standing for `holder` (a product or a license), living in the holder's environment. */
export async function generateTokenFor(ctx: BearerContext, holder: Item, kind: TokenKind) {
  const body = 'absent' in ctx.body ? undefined : parseBody(ctx.body, tokenBody);
  const attributes = body?.data.attributes ?? {};
  maxLength('name', attributes.name, 255);
  const permissions = attributes.permissions ?? ['*'];
  const unknown = unknownPermissions(permissions);
  if (unknown.length > 0) {
    throw unprocessable('PERMISSIONS_NOT_ALLOWED', `unsupported permissions: ${unknown.join(', ')}`, attributePointer('permissions'));
  }
  let expiry: string | null = null;
  if (attributes.expiry != null) {
    const at = Date.parse(attributes.expiry);
    if (Number.isNaN(at) || at <= Date.now()) {
      throw unprocessable('EXPIRY_INVALID', 'expiry must be a future ISO 8601 time', attributePointer('expiry'));
    }
    expiry = new Date(at).toISOString();
  }
  const tx = new Transaction();
  const result = addToken(tx, {
    accountId: holder.accountId as string,
    environmentId: (holder.environmentId as string | null) ?? null,
    bearer: { type: holder.type as RecordType, id: holder.id as string },
    kind,
    name: attributes.name ?? null,
    expiry,
    permissions,
  });
  tx.requireExists({ PK: holder.PK, SK: holder.SK }, new RecordNotFound(holder.type as string, holder.id as string));
  await emitEvent(tx, result.token, 'token.generated', tokenDocument(result.token));
  await tx.commit();
  return result;
}
