/**
 * Settings read from the environment, the same way in Lambda and in the local stack.
 * Read lazily so that a module can be imported before the variables are set.
 */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`The environment variable ${name} is not set`);
  return value;
}

/** About 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h (docs/rules.md §26.4). */
export const DEFAULT_WEBHOOK_RETRY_DELAYS: readonly number[] = [30, 120, 600, 1800, 3600, 10800, 21600, 43200, 86400];

/** Requests a minute one source address may make to each unauthenticated route (docs/rules.md §7.3). */
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
   * The DNS servers that resolve webhook hosts, from WEBHOOK_DNS_SERVERS (comma-separated
   * `address` or `address:port`, IPv6 as `[address]:port`); empty when unset: the system's resolver.
   */
  get webhookDnsServers(): string[] {
    return (process.env.WEBHOOK_DNS_SERVERS ?? '')
      .split(',')
      .map((server) => server.trim())
      .filter(Boolean);
  },
  /**
   * Seconds to wait before each further webhook delivery attempt (one per retry), from
   * WEBHOOK_RETRY_DELAYS (comma-separated); the default schedule (docs/rules.md §26.4) when unset or malformed.
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
   * Seconds before the second pass of long work done in steps (an environment's purge, a large
   * cascade: shared/resumable.ts), from SECOND_PASS_DELAY_SECONDS; unset or malformed: each
   * work's own delay. A test stack shortens it, as it shortens the webhook retries.
   */
  get secondPassDelaySeconds(): number | undefined {
    const raw = process.env.SECOND_PASS_DELAY_SECONDS?.trim();
    return raw && /^\d+$/.test(raw) ? Number(raw) : undefined;
  },
  /**
   * What wraps the data keys that seal secrets at rest: the KMS key named by SEALING_KMS_KEY (set
   * by the stack on the functions that seal or unseal), else the master key file named by
   * SEALING_MASTER_KEY_FILE (set by the local stack).
   */
  get sealingKey(): { kmsKeyId: string } | { masterKeyFile: string } {
    const kmsKeyId = process.env.SEALING_KMS_KEY;
    if (kmsKeyId) return { kmsKeyId };
    const masterKeyFile = process.env.SEALING_MASTER_KEY_FILE;
    if (masterKeyFile) return { masterKeyFile };
    throw new Error('Neither SEALING_KMS_KEY nor SEALING_MASTER_KEY_FILE is set: secrets cannot be sealed or unsealed');
  },
  /**
   * What wraps the data keys that seal the accounts' signing keys: the KMS key named by
   * SIGNING_KMS_KEY (set by the stack on every function that answers for an account), else the
   * local master key file (SEALING_MASTER_KEY_FILE).
   */
  get signingKeySealingKey(): { kmsKeyId: string } | { masterKeyFile: string } {
    const kmsKeyId = process.env.SIGNING_KMS_KEY;
    if (kmsKeyId) return { kmsKeyId };
    const masterKeyFile = process.env.SEALING_MASTER_KEY_FILE;
    if (masterKeyFile) return { masterKeyFile };
    throw new Error('Neither SIGNING_KMS_KEY nor SEALING_MASTER_KEY_FILE is set: signing keys cannot be made or used');
  },
  /**
   * Requests a minute one source address may make to each route limited per address (the
   * pipeline's `limitPerAddress`), from RATE_LIMIT_PER_ADDRESS; the default when unset or not a positive
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
