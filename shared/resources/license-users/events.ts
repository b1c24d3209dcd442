/** A license's users' events, as Keygen names them: the attachments made or removed, in one event. */
export const LICENSE_USER_EVENTS = ['license.users.attached', 'license.users.detached'] as const;
