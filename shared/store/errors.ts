/**
 * Faults of reaching or storing a record, whatever the resource: the pipeline answers
 * RecordNotFound with 404 and a table limit reached by a request's values with 413 or 422; the
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
 * A value the table cannot store, reached by what a request sent: an item over 400 KB, a key
 * over its size limit (`size`), or a number outside DynamoDB's range (`number`). Rules on the
 * input keep requests far from these limits; should one be reached, it is the request's fault
 * (4xx), never the service's.
 */
export class ValueNotStorable extends Error {
  constructor(readonly limit: 'size' | 'number') {
    super(limit === 'size' ? 'The values sent are too large to be stored' : 'A number sent is outside the range that can be stored');
    this.name = 'ValueNotStorable';
  }
}

/** DynamoDB's wording of its size and number limits (ValidationException messages). */
const SIZE_LIMIT = /size has exceeded|exceeded the (maximum|size limit)|size limit|must be under \d+ bytes|too large|larger than/i;
const NUMBER_LIMIT = /number (overflow|underflow)|magnitude (larger|smaller) than supported|significant digits/i;
/** The SDK's marshaller refuses numbers past ±2^53 before DynamoDB sees them. */
const UNSAFE_NUMBER = /^Number .* is (greater|lesser) than Number\.(MAX|MIN)_SAFE_INTEGER/;

/** The limit a DynamoDB validation message names, if it is one a request's values can reach. */
export function storageLimitIn(message: string | undefined): ValueNotStorable | undefined {
  if (!message) return undefined;
  if (NUMBER_LIMIT.test(message)) return new ValueNotStorable('number');
  if (SIZE_LIMIT.test(message)) return new ValueNotStorable('size');
  return undefined;
}

/** The error as ValueNotStorable when it is a limit of the table reached by values; else undefined. */
export function storageLimitOf(error: unknown): ValueNotStorable | undefined {
  if (error instanceof ValueNotStorable) return error;
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'ValidationException') return storageLimitIn(error.message);
  return UNSAFE_NUMBER.test(error.message) ? new ValueNotStorable('number') : undefined;
}
