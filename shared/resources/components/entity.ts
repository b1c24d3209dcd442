/**
 * Components: hardware (and other) fingerprints of a machine. A fingerprint is unique on its
 * machine, held by a marker keyed by the SHA-256 of the machine and the fingerprint, and within
 * the scope the policy's componentUniquenessStrategy names at the moment the component is
 * created, judged by the counts of its holders (shared/licensing/fingerprints.ts).
 */

import type { HolderRules } from '../../licensing/fingerprints.ts';
import type { StoredRecord } from '../../store/records.ts';
import type { UnderMachine } from '../machines/entity.ts';

export interface ComponentRecord extends StoredRecord, UnderMachine {
  type: 'components';
  fingerprint: string;
  name: string;
  metadata: Record<string, unknown>;
}

/**
 * The collections a component joins, by the name of the parent it names: the order is the store's
 * (the first is GSI2, the next GSI3...), never to be changed (docs/data-model.md).
 */
export const COMPONENT_PARENTS = { machine: 'machines', license: 'licenses', product: 'products', owner: 'users' } as const;

export const COMPONENT_FINGERPRINT_MARKER = 'COMPONENT_FINGERPRINT';

/** At most this many components come with a new machine (shared/resources/components/nested.ts). */
export const NESTED_COMPONENTS_MAX = 20;

/**
 * The marker holds a fingerprint on its machine; the license, policy, product and account count
 * its holders. Components made before the counts held the marker of their strategy's scope instead
 * (SHA-256 of `<scope>:<scope id>:<fingerprint>`, the machine's being the same as today's).
 */
export const COMPONENT_FINGERPRINTS: HolderRules = {
  kind: 'COMPONENT',
  marker: { level: 'machine', kind: COMPONENT_FINGERPRINT_MARKER },
  counted: ['license', 'policy', 'product', 'account'],
  earlierMarkers: true,
  device: true,
};
