/**
 * What a function may touch, and the sets of it the operations declare (each resource's
 * operations.ts): the CDK stack turns each set into the narrowest IAM grant, the local stack
 * runs every function with the same table and queues.
 */

/** What a function may touch; the stack turns each into the narrowest IAM grant. */
export type Access =
  | 'table:read'
  | 'table:write'
  | 'queue:webhooks'
  | 'queue:purge'
  | 'queue:mail'
  /**
   * Writes webhook events in its transactions (shared/events/emit.ts). No grant of its own (the
   * outbox relay sends them); the request pipeline reads the environment's webhook subscriptions
   * ahead for such a route (shared/http/request-keys.ts).
   */
  | 'events:emit'
  /** Continues a removal's cascade (the relay sends its first step from the table's stream). */
  | 'queue:cascades'
  | 'mail:send'
  /** Seal secrets at rest (a data key from the sealing key: shared/auth/seal.ts). */
  | 'key:seal'
  /** Unseal them (the data keys unwrapped by the sealing key). */
  | 'key:unseal'
  /**
   * Sign answers with the account's key (shared/auth/signing-key.ts): unseal it with the signing
   * keys' own KMS key, and give an account made before signing keys its key on first use (a new
   * data key, and an update of that one attribute of the account item).
   */
  | 'account:sign';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Requests a second (`rate`, sustained) and at once (`burst`, the token bucket's size) that
 * API Gateway passes to one route; beyond them it answers 429 without invoking the function.
 */
export interface Throttle {
  rate: number;
  burst: number;
}

export const ACCOUNT = '/v1/accounts/{account}';
export const TABLE_WRITE = ['table:read', 'table:write'] as const;
// Every route under an account signs its answers (shared/http/signature.ts).
export const READ = ['table:read', 'account:sign'] as const;
export const WRITE = [...TABLE_WRITE, 'account:sign'] as const;
/**
 * A write that emits webhook events. It sends nothing itself: the outbox relay (`streamWorkers`)
 * sends their deliveries from the table's stream once it commits.
 */
export const EMIT = [...WRITE, 'events:emit'] as const;

// Route throttles in place of the stage's default (`stageThrottle`, lib/stage.ts).
/**
 * Validation is what licensed software calls, from every machine, at every start: the busiest
 * routes by far. Each call makes up to 9 table requests (docs/benchmarks.md), so 500/s stays
 * within what a new on-demand table serves without warming up (4,000 writes, 12,000 reads a second).
 */
export const VALIDATION: Throttle = { rate: 500, burst: 1000 };
/**
 * A credential check (scrypt: 16 MB and tens of milliseconds of CPU per password) that anyone
 * may call: logins are rare, guessing is not. The per-address limit inside the function costs
 * a table write of its own, so the flood is best stopped before it.
 */
export const CREDENTIALS: Throttle = { rate: 20, burst: 40 };
/** Each request may queue a password-reset mail: a flood would spend the SES sending quota and reputation every account shares. */
export const MAIL: Throttle = { rate: 5, burst: 10 };
