/**
 * Faults of reaching or storing a record, whatever the resource: the pipeline answers
 * RecordNotFound with 404 and a table limit reached by a request's values with 422 or 400; the
 * policies refuse a change to a read-only record with RecordReadOnly's words (403).
 */
export class RecordNotFound extends Error {
  constructor(
    readonly recordType: string,
    readonly recordId: string,
  ) {
    super(`The requested ${recordType.replace(/s$/, '').replace(/-/g, ' ')} '${recordId}' was not found`);
    this.name = 'RecordNotFound';
  }
}

/** A record the request can see but not change: a global record seen from a SHARED environment. */
export class RecordReadOnly extends Error {
  constructor(
    readonly recordType: string,
    readonly recordId: string,
  ) {
    super(`This ${recordType.replace(/s$/, '').replace(/-/g, ' ')} belongs to another environment and is read-only here`);
    this.name = 'RecordReadOnly';
  }
}

/**
 * A limit of the table reached by what a request sent. `size`: what the request would write is
 * larger than DynamoDB takes (an item over 400 KB, a transaction over 100 writes or 4 MB, an
 * expression or its values over their limits). `value`: a value DynamoDB, or the SDK's
 * marshaller before it, cannot hold whatever its record (a number out of range, a key over its
 * size, nesting past 32 levels).
 * Rules on the input keep requests far from these limits; should one be reached, it is the
 * request's fault (4xx), never the service's.
 */
export class ValueNotStorable extends Error {
  constructor(
    readonly limit: 'size' | 'value',
    detail: string,
  ) {
    super(detail);
    this.name = 'ValueNotStorable';
  }
}

interface Limit {
  /** The failure's words: a ValidationException's message, a transaction's ValidationError reason, the marshaller's Error. */
  wording: RegExp;
  limit: ValueNotStorable['limit'];
  detail: string;
}

const NUMBER_DETAIL = 'A number sent is outside the range that can be stored (magnitudes from 1e-130 to 9.99e125, at most 38 digits)';

/**
 * DynamoDB's limits a request's values can reach, by the words of its ValidationException
 * (DynamoDB's own and DynamoDB Local's); the key limits come before the sizes, whose words
 * overlap. Any other ValidationException is a request the service built wrongly: not here, a 500.
 */
const LIMITS: readonly Limit[] = [
  { wording: /number (overflow|underflow)|significant digits/i, limit: 'value', detail: NUMBER_DETAIL },
  {
    wording:
      /hash ?key|range (primary )?keys?|primary key values|index key|key attribute|^one or more parameter values were invalid: size limit exceeded/i,
    limit: 'value',
    detail: 'A value sent cannot be stored as a key (from 1 to 2048 bytes; at most 1024 for a sort key)',
  },
  { wording: /nesting levels/i, limit: 'value', detail: 'A value sent is nested deeper than can be stored (32 levels)' },
  {
    wording:
      /item size( to update)? has exceeded|payload size cannot exceed|cannot be larger than|length less than or equal to 100\b|expression size has exceeded|exceeds max(imum)? size/i,
    limit: 'size',
    detail: 'What this request would write is too large to be stored (at most 400 KB a record)',
  },
];

/**
 * The SDK's marshaller (@aws-sdk/util-dynamodb) refuses some values before DynamoDB sees them,
 * with plain Errors: numbers past ±2^53 or not finite, objects it takes for class instances (a
 * `constructor` key). One whose `toString` key is no function makes its very message throw a
 * TypeError instead; told by its words alone, as the boundary cannot see where it was thrown,
 * that TypeError anywhere else would still be an object of the request that cannot be made text.
 */
const MARSHALLER: readonly Limit[] = [
  {
    wording: /^Number .* is (greater|lesser) than Number\.(MAX|MIN)_SAFE_INTEGER|^Special numeric value/,
    limit: 'value',
    detail: NUMBER_DETAIL,
  },
  {
    wording: /^Unsupported type passed|^Cannot convert object to primitive value$/,
    limit: 'value',
    detail: 'A value sent cannot be stored as it is (an object that names itself a class instance)',
  },
];

const limitIn = (limits: readonly Limit[], message: string | undefined) => {
  const found = message === undefined ? undefined : limits.find(({ wording }) => wording.test(message));
  return found && new ValueNotStorable(found.limit, found.detail);
};

/** The reasons DynamoDB gives for a cancelled transaction, one per operation. */
type CancellationReasons = { CancellationReasons?: { Code?: string; Message?: string }[] };

/**
 * The one mapping of a store call's failure to the table limit a request's values reached, if
 * it is one (else undefined: a fault of the service or of DynamoDB, which stays a 500). A
 * cancelled transaction is one when an operation was refused for its values and no condition
 * failed (a failed condition is the Transaction's to name).
 */
export function storageLimitOf(error: unknown): ValueNotStorable | undefined {
  if (error instanceof ValueNotStorable) return error;
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'ValidationException') return limitIn(LIMITS, error.message);
  if (error.name === 'TransactionCanceledException') {
    const reasons = (error as CancellationReasons).CancellationReasons ?? [];
    if (reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) return undefined;
    return reasons.map((reason) => (reason.Code === 'ValidationError' ? limitIn(LIMITS, reason.Message) : undefined)).find(Boolean);
  }
  if (error.name === 'Error' || error.name === 'TypeError') return limitIn(MARSHALLER, error.message);
  return undefined;
}
