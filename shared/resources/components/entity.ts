/**
 * Components: hardware (and other) fingerprints of a machine. A fingerprint is unique on its
 * machine, held by a marker keyed by the SHA-256 of the machine and the fingerprint, and within
 * the scope the policy's componentUniquenessStrategy names at the moment the component is
 * created, judged by the counts of its holders (shared/licensing/fingerprints.ts).
 */

import type { HolderRules } from '../../licensing/fingerprints.ts';
import type { AccessPattern, MarkerKind } from '../../store/data-model.ts';
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

/** The uniqueness markers its records hold (docs/data-model.md). */
export const MARKER_KINDS: readonly MarkerKind[] = [
  {
    kind: COMPONENT_FINGERPRINT_MARKER,
    value:
      "SHA-256 of `machine:<machineId>:<fingerprint>`: a component's fingerprint on its machine (a component made before the fingerprint counts holds the one of the scope its strategy named: `<scope>:<scope id>:<fingerprint>`, the scope license, policy, product or account)",
  },
];

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

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 26,
    name: 'Claim a component fingerprint on its machine',
    operation: 'TransactWriteItems, Put with `attribute_not_exists(PK)`',
    index: 'table',
    key: '`PK = A#<acct>#UNIQUE#COMPONENT_FINGERPRINT#<sha256>`',
    usedBy: 'components.create, machines.create (nested components); every strategy implies it (43)',
    tests: ['store/data-model', 'http/components-uniqueness'],
  },
  {
    n: 27,
    name: "A machine's components",
    operation: 'Query (backwards)',
    index: 'GSI2',
    key: '`GSI2PK = A#<acct>#E#<env>#MACHINE#<id>#COMPONENT`',
    usedBy: '`?machine=`, `/machines/<id>/components`, validation, machine cascade',
    tests: ['store/data-model'],
  },
  {
    n: 28,
    name: "A license's components",
    operation: 'Query (backwards)',
    index: 'GSI3',
    key: '`GSI3PK = …#LICENSE#<id>#COMPONENT`',
    usedBy: '`?license=`, license cascade',
    tests: ['store/data-model'],
  },
  {
    n: 29,
    name: "A product's components",
    operation: 'Query (backwards)',
    index: 'GSI4',
    key: '`GSI4PK = …#PRODUCT#<id>#COMPONENT`',
    usedBy: "`?product=`, product bearers' list, product cascade",
    tests: ['store/data-model'],
  },
  {
    n: 30,
    name: "A user's components",
    operation: 'Query (backwards)',
    index: 'GSI5',
    key: '`GSI5PK = …#USER#<id>#COMPONENT`',
    usedBy: "`?owner=`/`?user=`, user bearers' list",
    tests: ['store/data-model'],
  },
];
