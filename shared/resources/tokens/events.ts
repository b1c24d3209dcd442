/** A token's events. */
export const TOKEN_EVENTS = ['token.created', 'token.updated', 'token.deleted', 'token.generated', 'token.regenerated'] as const;
