/**
 * The data model's declarations, read by the generator of docs/data-model.md alone.
 *
 * An access pattern: one way the table is read or written, declared by the module that performs
 * it as `ACCESS_PATTERNS`. docs/data-model.md's table of access patterns is generated from these
 * declarations (`npm run docs`, dev/data-model.ts), and a test holds the document, the names and
 * the tests they cite to them. A declaration is documentation only: no handler reads it, so no
 * bundle carries it.
 */
export interface AccessPattern {
  /** Its number: what comments, tests and documents cite ("pattern 23"); never reused. */
  readonly n: number;
  readonly name: string;
  /** The DynamoDB requests it makes and their conditions. */
  readonly operation: string;
  /** The table, the index or the stream it reads. */
  readonly index: string;
  /** The key condition, or the keys it names. */
  readonly key: string;
  /** The operations, workers and functions that perform it; a name in backquotes is one the code defines. */
  readonly usedBy: string;
  /** The tests that exercise it, by their path under test/ (without `.test.ts`). */
  readonly tests: readonly string[];
}

/**
 * A kind of uniqueness marker (`A#<account>#UNIQUE#<kind>#<value>`), declared by the entity whose
 * records hold it as `MARKER_KINDS`; docs/data-model.md lists them from these declarations, and
 * the table's consistency check refuses a marker of a kind none declares.
 */
export interface MarkerKind {
  readonly kind: string;
  /** What the marker's value is made of. */
  readonly value: string;
}
