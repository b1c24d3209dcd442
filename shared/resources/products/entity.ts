/** Products: what a vendor sells; policies, licenses, machines and components hang on one. */

import type { AccessPattern } from '../../store/data-model.ts';
import type { StoredRecord } from '../../store/records.ts';

export interface ProductRecord extends StoredRecord {
  type: 'products';
  name: string;
  url: string | null;
  metadata: Record<string, unknown>;
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 33,
    name: "Products of a user's licenses; whether a user owns a license of a product or policy",
    operation:
      'Query GSI4 (licenses by owner), then GetItem per distinct product; for the question, Query GSI4 with `productId`/`policyId` as a FilterExpression, pages of 101 until one matches, nothing counted (`anyInCollection`)',
    index: 'GSI4, table',
    key: '`GSI4PK = …#USER#<id>#LICENSE`',
    usedBy: "`GET /products` (user bearers), `/users/<id>/products`; the policies' reach of a product or policy for a user bearer",
    tests: ['http/products', 'http/permission-matrix-catalogue'],
  },
];
