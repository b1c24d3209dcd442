/** A second factor's events, as Keygen names them. */
export const SECOND_FACTOR_EVENTS = [
  'second-factor.created',
  'second-factor.enabled',
  'second-factor.disabled',
  'second-factor.deleted',
] as const;
