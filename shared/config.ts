/**
 * Settings read from the environment, the same way in Lambda and in the local stack.
 * Read lazily so that a module can be imported before the variables are set.
 */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`The environment variable ${name} is not set`);
  return value;
}

/** About 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h (DECISIONS §5). */
export const DEFAULT_WEBHOOK_RETRY_DELAYS: readonly number[] = [30, 120, 600, 1800, 3600, 10800, 21600, 43200, 86400];

/** Requests a minute one source address may make to each unauthenticated route (DECISIONS §9). */
export const DEFAULT_RATE_LIMIT_PER_ADDRESS = 60;

export const config = {
  get tableName() {
    return required('TABLE_NAME');
  },
  /** Name shown in WWW-Authenticate and mail. */
  get serviceName() {
    return process.env.SERVICE_NAME ?? 'licensing';
  },
  /** Base URL of the API as clients reach it (links in e-mails). */
  get publicUrl() {
    return (process.env.PUBLIC_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  },
  /** Sender of the service's mail; an identity verified in SES. */
  get mailFrom() {
    return required('MAIL_FROM');
  },
  /** Whether webhook endpoints may be plain http and resolve to private, loopback or link-local addresses. */
  get allowPrivateWebhookTargets() {
    return process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS === 'true';
  },
  /**
   * Seconds to wait before each further webhook delivery attempt (one per retry), from
   * WEBHOOK_RETRY_DELAYS (comma-separated); DECISIONS §5's schedule when unset or malformed.
   */
  get webhookRetryDelays(): readonly number[] {
    const raw = process.env.WEBHOOK_RETRY_DELAYS?.trim();
    if (raw) {
      const delays = raw.split(',').map((part) => part.trim());
      if (delays.every((delay) => /^\d+$/.test(delay))) return delays.map(Number);
    }
    return DEFAULT_WEBHOOK_RETRY_DELAYS;
  },
  /**
   * Requests a minute one source address may make to each route of ADDRESS_LIMITED
   * (shared/routes.ts), from RATE_LIMIT_PER_ADDRESS; the default when unset or not a positive
   * whole number.
   */
  get rateLimitPerAddress(): number {
    const raw = process.env.RATE_LIMIT_PER_ADDRESS?.trim();
    return raw && /^[1-9]\d*$/.test(raw) ? Number(raw) : DEFAULT_RATE_LIMIT_PER_ADDRESS;
  },
  queueUrl(variable: string) {
    return required(variable);
  },
};
