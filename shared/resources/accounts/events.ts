/** The account's events. */
export const ACCOUNT_EVENTS = ['account.created', 'account.updated', 'account.deleted'] as const;
