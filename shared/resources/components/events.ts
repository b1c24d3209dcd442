/** A component's events. */
export const COMPONENT_EVENTS = ['component.created', 'component.updated', 'component.deleted'] as const;
