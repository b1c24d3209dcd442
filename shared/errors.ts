/**
 * The faults the service names, in its own terms: a rule of the model broken, an action refused,
 * a change that lost a race, a credential refused, a limit reached, an input that cannot be read,
 * an answer too large to give.
 * A record not found is the store's (RecordNotFound in shared/store/errors.ts). None of them knows
 * HTTP: the pipeline turns each into its status and JSON:API error in one place
 * (`toApiError` in shared/http/errors.ts; statuses and codes in docs/rules.md §2.2).
 */

/** Where in the request a fault lies: a JSON pointer into the body, a query parameter, a header. */
export interface FaultSource {
  pointer?: string;
  parameter?: string;
  header?: string;
}

/** Where a rate limit stands. */
export interface LimitState {
  limit: number;
  remaining: number;
  /** Unix seconds at which the window restarts. */
  resetAt: number;
}

/** A rule of the model broken by the values sent (`<ATTRIBUTE>_<KIND>`, docs/rules.md §2.2). */
export class RuleBroken extends Error {
  constructor(
    readonly code: string,
    detail: string,
    readonly pointer?: string,
  ) {
    super(detail);
    this.name = 'RuleBroken';
  }
}

/** The caller is known and sees the record, but may not do this; `code` when the refusal has one (a license that may not authenticate). */
export class ActionRefused extends Error {
  constructor(
    detail: string,
    readonly code?: string,
  ) {
    super(detail);
    this.name = 'ActionRefused';
  }
}

/** The change lost to a concurrent one, or contradicts the request itself: retry or resend. */
export class Conflict extends Error {
  constructor(
    detail: string,
    readonly code = 'CONFLICT',
    readonly source?: FaultSource,
  ) {
    super(detail);
    this.name = 'Conflict';
  }
}

/** No credential, or one that is not accepted; `challenge` names the scheme to answer with. */
export class NotAuthenticated extends Error {
  constructor(
    readonly code: string,
    detail: string,
    readonly challenge?: 'Bearer' | 'Basic',
    /** The credential at fault when it is not the request's own (a password in the body). */
    readonly source?: FaultSource,
  ) {
    super(detail);
    this.name = 'NotAuthenticated';
  }
}

/** A rate limit reached. */
export class LimitReached extends Error {
  constructor(
    detail: string,
    readonly state: Pick<LimitState, 'limit' | 'resetAt'>,
  ) {
    super(detail);
    this.name = 'LimitReached';
  }
}

/** An input the service cannot read at all (a malformed query value, an unknown environment). */
export class InputInvalid extends Error {
  constructor(
    readonly code: string,
    detail: string,
    readonly source?: FaultSource,
  ) {
    super(detail);
    this.name = 'InputInvalid';
  }
}

/**
 * What the request asks for would make an answer larger than one may be (docs/rules.md §3.3): the
 * same request fails the same way, so the client must ask for less (fewer includes, a smaller page).
 */
export class AnswerTooLarge extends Error {
  constructor(
    readonly code: string,
    detail: string,
    readonly source?: FaultSource,
  ) {
    super(detail);
    this.name = 'AnswerTooLarge';
  }
}

export const ruleBroken = (code: string, detail: string, pointer?: string) => new RuleBroken(code, detail, pointer);

export const refused = (detail: string, code?: string) => new ActionRefused(detail, code);

export const conflict = (detail: string) => new Conflict(detail);

/** A query parameter whose value cannot be read (PARAMETERS_INVALID). */
export const invalidQuery = (parameter: string, detail: string) => new InputInvalid('PARAMETERS_INVALID', detail, { parameter });
