/** A user's events: its changes, and a password reset handed over by webhook (shared/resources/passwords/). */
export const USER_EVENTS = ['user.created', 'user.updated', 'user.deleted', 'user.password-reset'] as const;
