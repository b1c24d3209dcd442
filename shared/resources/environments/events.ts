/** An environment's events. */
export const ENVIRONMENT_EVENTS = ['environment.created', 'environment.updated', 'environment.deleted'] as const;
