/** A pooled key's events, as Keygen names them (a key taken by a license announces the license's create). */
export const KEY_EVENTS = ['key.created', 'key.updated', 'key.deleted'] as const;
