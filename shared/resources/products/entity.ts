/** Products: what a vendor sells; policies, licenses, machines and components hang on one. */
import type { StoredRecord } from '../../store/records.ts';

export interface ProductRecord extends StoredRecord {
  type: 'products';
  name: string;
  url: string | null;
  metadata: Record<string, unknown>;
}
