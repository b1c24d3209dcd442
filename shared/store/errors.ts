/**
 * Faults of reaching a record, whatever the resource: the pipeline answers RecordNotFound with
 * 404; the policies refuse a change to a read-only record with RecordReadOnly's words (403).
 */
export class RecordNotFound extends Error {
  constructor(readonly recordType: string, readonly recordId: string) {
    super(`The requested ${recordType.replace(/s$/, '').replace(/-/g, ' ')} '${recordId}' was not found`);
    this.name = 'RecordNotFound';
  }
}

/** A record the request can see but not change: a global record seen from a SHARED environment. */
export class RecordReadOnly extends Error {
  constructor(readonly recordType: string, readonly recordId: string) {
    super(`This ${recordType.replace(/s$/, '').replace(/-/g, ' ')} belongs to another environment and is read-only here`);
    this.name = 'RecordReadOnly';
  }
}
