/**
 * THE route table: the single declaration of the API's surface.
 *
 * The CDK stack builds one Lambda function per route (and per worker), granted only the
 * access the entry declares; the local server dispatches from the same table. Adding an
 * operation means adding one entry here and one handler module under functions/.
 *
 * Paths use API Gateway's `{name}` parameter syntax. Every handler module exports `handler`.
 */
import { outboxAccess, outboxFilters } from './outbox/entries.ts';

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

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface Route {
  /** Unique, stable name: `<resource>.<action>`; also the Lambda's logical id. */
  operation: string;
  method: Method;
  /** Full path under the API root, e.g. `/v1/accounts/{account}/users/{id}`. */
  path: string;
  /** Handler module, relative to the repository root. */
  handler: string;
  access: readonly Access[];
  /** API Gateway's limit for this route, in place of the stage's default (lib/stage.ts). */
  throttle?: Throttle;
}

/**
 * Requests a second (`rate`, sustained) and at once (`burst`, the token bucket's size) that
 * API Gateway passes to one route; beyond them it answers 429 without invoking the function.
 */
export interface Throttle {
  rate: number;
  burst: number;
}

/** The queues the service uses; each has a dead-letter queue. */
export type QueueName = 'webhooks' | 'purge' | 'mail' | 'cascades';

export interface Worker {
  operation: string;
  queue: QueueName;
  handler: string;
  access: readonly Access[];
  /** Messages per invocation, as the event source mapping delivers them. */
  batchSize: number;
  /**
   * Invocations the event source runs at once at most (its maximum concurrency, 2 to 1000);
   * the local poller keeps as many batches in flight.
   */
  maxConcurrency: number;
}

/**
 * A function fed by the table's stream, as a worker is by its queue: Lambda's DynamoDB event source
 * on AWS (lib/relay.ts), the stream poller in the local stack (shared/local/streams.ts), both from
 * this entry. Only the records a filter lets through reach it, oldest first (TRIM_HORIZON, so a
 * new source starts with what the stream still holds). It answers the records it failed
 * (ReportBatchItemFailures): the batch is retried from the first of them. A batch that throws is
 * split in two, each half retried on its own (BisectBatchOnFunctionError). A batch that still
 * fails after `retryAttempts` retries, or whose records grew older than `maxRecordAgeSeconds`, is
 * described in the function's on-failure queue and its shard goes on.
 */
export interface StreamWorker {
  operation: string;
  handler: string;
  access: readonly Access[];
  /** Records per invocation at most. */
  batchSize: number;
  /** Seconds the event source may wait to fill a batch; 0: a batch goes as soon as a record is there. */
  maxBatchingWindowSeconds: number;
  retryAttempts: number;
  maxRecordAgeSeconds: number;
  timeoutSeconds: number;
  /** Lambda event filter patterns: a record any of them matches is handed to the function. */
  filters: readonly Record<string, unknown>[];
  /** How long the on-failure queue keeps a failed batch's description (seconds). */
  failureRetentionSeconds: number;
}

/**
 * A function the stack runs on a timer rather than for a request or a message: an EventBridge
 * rule on AWS (lib/schedules.ts), a timer in the local stack (shared/local/scheduler.ts).
 */
export interface Schedule {
  operation: string;
  handler: string;
  access: readonly Access[];
  /** Minutes between runs on AWS (the rule's rate); the local stack's interval is its own setting. */
  everyMinutes: number;
  /** Seconds one run may take. */
  timeoutSeconds: number;
}

const ACCOUNT = '/v1/accounts/{account}';
const TABLE_WRITE = ['table:read', 'table:write'] as const;
// Every route under an account signs its answers (shared/http/signature.ts).
const READ = ['table:read', 'account:sign'] as const;
const WRITE = [...TABLE_WRITE, 'account:sign'] as const;
/**
 * A write that emits webhook events. It sends nothing itself: the outbox relay (`streamWorkers`)
 * sends their deliveries from the table's stream once it commits.
 */
const EMIT = [...WRITE, 'events:emit'] as const;

// Route throttles in place of the stage's default (`stageThrottle`, lib/stage.ts).
/**
 * Validation is what licensed software calls, from every machine, at every start: the busiest
 * routes by far. Each call makes up to 9 table requests (docs/benchmarks.md), so 500/s stays
 * within what a new on-demand table serves without warming up (4,000 writes, 12,000 reads a second).
 */
const VALIDATION: Throttle = { rate: 500, burst: 1000 };
/**
 * A credential check (scrypt: 16 MB and tens of milliseconds of CPU per password) that anyone
 * may call: logins are rare, guessing is not. The per-address limit inside the function costs
 * a table write of its own, so the flood is best stopped before it.
 */
const CREDENTIALS: Throttle = { rate: 20, burst: 40 };
/** Each request may queue a password-reset mail: a flood would spend the SES sending quota and reputation every account shares. */
const MAIL: Throttle = { rate: 5, burst: 10 };

export const routes: readonly Route[] = [
  // The API's description (outside any account; no credential): for tools, and as a page for people
  { operation: 'openapi.retrieve', method: 'GET', path: '/v1/openapi.json', handler: 'functions/reference/openapi.ts', access: [] },
  { operation: 'reference.page', method: 'GET', path: '/v1/docs', handler: 'functions/reference/page.ts', access: [] },

  // Accounts
  { operation: 'accounts.retrieve', method: 'GET', path: ACCOUNT, handler: 'functions/accounts/retrieve.ts', access: READ },
  { operation: 'accounts.update', method: 'PATCH', path: ACCOUNT, handler: 'functions/accounts/update.ts', access: EMIT },

  // Users
  { operation: 'users.create', method: 'POST', path: `${ACCOUNT}/users`, handler: 'functions/users/create.ts', access: EMIT },
  { operation: 'users.list', method: 'GET', path: `${ACCOUNT}/users`, handler: 'functions/users/list.ts', access: READ },
  { operation: 'users.retrieve', method: 'GET', path: `${ACCOUNT}/users/{id}`, handler: 'functions/users/retrieve.ts', access: READ },
  { operation: 'users.update', method: 'PATCH', path: `${ACCOUNT}/users/{id}`, handler: 'functions/users/update.ts', access: EMIT },
  { operation: 'users.delete', method: 'DELETE', path: `${ACCOUNT}/users/{id}`, handler: 'functions/users/delete.ts', access: EMIT },
  { operation: 'users.ban', method: 'POST', path: `${ACCOUNT}/users/{id}/actions/ban`, handler: 'functions/users/ban.ts', access: EMIT },
  {
    operation: 'users.unban',
    method: 'POST',
    path: `${ACCOUNT}/users/{id}/actions/unban`,
    handler: 'functions/users/unban.ts',
    access: EMIT,
  },
  {
    operation: 'users.resetPassword',
    method: 'POST',
    path: `${ACCOUNT}/users/{id}/actions/reset-password`,
    handler: 'functions/users/reset-password.ts',
    access: EMIT,
  },
  { operation: 'users.tokens', method: 'GET', path: `${ACCOUNT}/users/{id}/tokens`, handler: 'functions/users/tokens.ts', access: READ },
  {
    operation: 'users.licenses',
    method: 'GET',
    path: `${ACCOUNT}/users/{id}/licenses`,
    handler: 'functions/users/licenses.ts',
    access: READ,
  },
  {
    operation: 'users.machines',
    method: 'GET',
    path: `${ACCOUNT}/users/{id}/machines`,
    handler: 'functions/users/machines.ts',
    access: READ,
  },
  {
    operation: 'users.products',
    method: 'GET',
    path: `${ACCOUNT}/users/{id}/products`,
    handler: 'functions/users/products.ts',
    access: READ,
  },

  // Tokens
  {
    operation: 'tokens.generate',
    method: 'POST',
    path: `${ACCOUNT}/tokens`,
    handler: 'functions/tokens/generate.ts',
    access: EMIT,
    throttle: CREDENTIALS,
  },
  { operation: 'tokens.list', method: 'GET', path: `${ACCOUNT}/tokens`, handler: 'functions/tokens/list.ts', access: READ },
  { operation: 'tokens.retrieve', method: 'GET', path: `${ACCOUNT}/tokens/{id}`, handler: 'functions/tokens/retrieve.ts', access: READ },
  { operation: 'tokens.revoke', method: 'DELETE', path: `${ACCOUNT}/tokens/{id}`, handler: 'functions/tokens/revoke.ts', access: EMIT },

  // The bearer itself: whom the request's credential stands for (Keygen's SDKs start with it)
  { operation: 'me.retrieve', method: 'GET', path: `${ACCOUNT}/me`, handler: 'functions/me/retrieve.ts', access: READ },

  // Password resets
  {
    operation: 'passwords.request',
    method: 'POST',
    path: `${ACCOUNT}/passwords`,
    handler: 'functions/passwords/request.ts',
    access: WRITE,
    throttle: MAIL,
  },
  { operation: 'passwords.form', method: 'GET', path: `${ACCOUNT}/password-reset`, handler: 'functions/passwords/form.ts', access: [] },

  // Environments
  {
    operation: 'environments.create',
    method: 'POST',
    path: `${ACCOUNT}/environments`,
    handler: 'functions/environments/create.ts',
    access: EMIT,
  },
  {
    operation: 'environments.list',
    method: 'GET',
    path: `${ACCOUNT}/environments`,
    handler: 'functions/environments/list.ts',
    access: READ,
  },
  {
    operation: 'environments.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/environments/{id}`,
    handler: 'functions/environments/retrieve.ts',
    access: READ,
  },
  {
    operation: 'environments.update',
    method: 'PATCH',
    path: `${ACCOUNT}/environments/{id}`,
    handler: 'functions/environments/update.ts',
    access: EMIT,
  },
  {
    operation: 'environments.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/environments/{id}`,
    handler: 'functions/environments/delete.ts',
    access: EMIT,
  },
  {
    operation: 'environments.tokens.generate',
    method: 'POST',
    path: `${ACCOUNT}/environments/{id}/tokens`,
    handler: 'functions/environments/generate-token.ts',
    access: EMIT,
  },
  {
    operation: 'environments.tokens.list',
    method: 'GET',
    path: `${ACCOUNT}/environments/{id}/tokens`,
    handler: 'functions/environments/tokens.ts',
    access: READ,
  },

  // Products
  { operation: 'products.create', method: 'POST', path: `${ACCOUNT}/products`, handler: 'functions/products/create.ts', access: EMIT },
  { operation: 'products.list', method: 'GET', path: `${ACCOUNT}/products`, handler: 'functions/products/list.ts', access: READ },
  {
    operation: 'products.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/products/{id}`,
    handler: 'functions/products/retrieve.ts',
    access: READ,
  },
  {
    operation: 'products.update',
    method: 'PATCH',
    path: `${ACCOUNT}/products/{id}`,
    handler: 'functions/products/update.ts',
    access: EMIT,
  },
  {
    operation: 'products.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/products/{id}`,
    handler: 'functions/products/delete.ts',
    access: EMIT,
  },
  {
    operation: 'products.tokens.generate',
    method: 'POST',
    path: `${ACCOUNT}/products/{id}/tokens`,
    handler: 'functions/products/generate-token.ts',
    access: EMIT,
  },

  // Policies
  { operation: 'policies.create', method: 'POST', path: `${ACCOUNT}/policies`, handler: 'functions/policies/create.ts', access: EMIT },
  { operation: 'policies.list', method: 'GET', path: `${ACCOUNT}/policies`, handler: 'functions/policies/list.ts', access: READ },
  {
    operation: 'policies.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/policies/{id}`,
    handler: 'functions/policies/retrieve.ts',
    access: READ,
  },
  {
    operation: 'policies.update',
    method: 'PATCH',
    path: `${ACCOUNT}/policies/{id}`,
    handler: 'functions/policies/update.ts',
    access: EMIT,
  },
  {
    operation: 'policies.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/policies/{id}`,
    handler: 'functions/policies/delete.ts',
    access: EMIT,
  },
  {
    operation: 'policies.entitlements',
    method: 'GET',
    path: `${ACCOUNT}/policies/{id}/entitlements`,
    handler: 'functions/policies/entitlements.ts',
    access: READ,
  },
  {
    operation: 'policies.entitlements.attach',
    method: 'POST',
    path: `${ACCOUNT}/policies/{id}/entitlements`,
    handler: 'functions/policies/attach-entitlements.ts',
    access: EMIT,
  },
  {
    operation: 'policies.entitlements.detach',
    method: 'DELETE',
    path: `${ACCOUNT}/policies/{id}/entitlements`,
    handler: 'functions/policies/detach-entitlements.ts',
    access: EMIT,
  },

  // Licenses
  { operation: 'licenses.create', method: 'POST', path: `${ACCOUNT}/licenses`, handler: 'functions/licenses/create.ts', access: EMIT },
  { operation: 'licenses.list', method: 'GET', path: `${ACCOUNT}/licenses`, handler: 'functions/licenses/list.ts', access: READ },
  {
    operation: 'licenses.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}`,
    handler: 'functions/licenses/retrieve.ts',
    access: READ,
  },
  {
    operation: 'licenses.update',
    method: 'PATCH',
    path: `${ACCOUNT}/licenses/{id}`,
    handler: 'functions/licenses/update.ts',
    access: EMIT,
  },
  {
    operation: 'licenses.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/licenses/{id}`,
    handler: 'functions/licenses/delete.ts',
    access: EMIT,
  },
  {
    operation: 'licenses.tokens.generate',
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/tokens`,
    handler: 'functions/licenses/generate-token.ts',
    access: EMIT,
  },
  {
    operation: 'licenses.validate',
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/validate`,
    handler: 'functions/licenses/validate.ts',
    access: EMIT,
    throttle: VALIDATION,
  },
  {
    operation: 'licenses.validateKey',
    method: 'POST',
    path: `${ACCOUNT}/licenses/actions/validate-key`,
    handler: 'functions/licenses/validate-key.ts',
    access: EMIT,
    throttle: VALIDATION,
  },
  {
    operation: 'licenses.checkOut',
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/check-out`,
    handler: 'functions/licenses/check-out.ts',
    access: EMIT,
  },
  // A GET that writes: the check-out sets the license's lastCheckOut and emits an event.
  {
    operation: 'licenses.checkOutFile',
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/actions/check-out`,
    handler: 'functions/licenses/check-out-file.ts',
    access: EMIT,
  },
  {
    operation: 'licenses.machines',
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/machines`,
    handler: 'functions/licenses/machines.ts',
    access: READ,
  },
  {
    operation: 'licenses.policy',
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/policy`,
    handler: 'functions/licenses/policy.ts',
    access: READ,
  },
  {
    operation: 'licenses.product',
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/product`,
    handler: 'functions/licenses/product.ts',
    access: READ,
  },
  {
    operation: 'licenses.owner',
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/owner`,
    handler: 'functions/licenses/owner.ts',
    access: READ,
  },
  {
    operation: 'licenses.entitlements',
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/entitlements`,
    handler: 'functions/licenses/entitlements.ts',
    access: READ,
  },
  {
    operation: 'licenses.entitlements.attach',
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/entitlements`,
    handler: 'functions/licenses/attach-entitlements.ts',
    access: EMIT,
  },
  {
    operation: 'licenses.entitlements.detach',
    method: 'DELETE',
    path: `${ACCOUNT}/licenses/{id}/entitlements`,
    handler: 'functions/licenses/detach-entitlements.ts',
    access: EMIT,
  },

  // A license's lifecycle (docs/rules.md §11)
  {
    operation: 'licenses.suspend',
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/suspend`,
    handler: 'functions/licenses/suspend.ts',
    access: EMIT,
  },
  {
    operation: 'licenses.reinstate',
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/reinstate`,
    handler: 'functions/licenses/reinstate.ts',
    access: EMIT,
  },
  {
    operation: 'licenses.renew',
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/renew`,
    handler: 'functions/licenses/renew.ts',
    access: EMIT,
  },
  {
    operation: 'licenses.revoke',
    method: 'DELETE',
    path: `${ACCOUNT}/licenses/{id}/actions/revoke`,
    handler: 'functions/licenses/revoke.ts',
    access: EMIT,
  },

  // Machines
  { operation: 'machines.create', method: 'POST', path: `${ACCOUNT}/machines`, handler: 'functions/machines/create.ts', access: EMIT },
  { operation: 'machines.list', method: 'GET', path: `${ACCOUNT}/machines`, handler: 'functions/machines/list.ts', access: READ },
  {
    operation: 'machines.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/machines/{id}`,
    handler: 'functions/machines/retrieve.ts',
    access: READ,
  },
  {
    operation: 'machines.update',
    method: 'PATCH',
    path: `${ACCOUNT}/machines/{id}`,
    handler: 'functions/machines/update.ts',
    access: EMIT,
  },
  {
    operation: 'machines.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/machines/{id}`,
    handler: 'functions/machines/delete.ts',
    access: EMIT,
  },
  {
    operation: 'machines.checkOut',
    method: 'POST',
    path: `${ACCOUNT}/machines/{id}/actions/check-out`,
    handler: 'functions/machines/check-out.ts',
    access: EMIT,
  },
  // A GET that writes: the check-out sets the machine's lastCheckOut and emits an event.
  {
    operation: 'machines.checkOutFile',
    method: 'GET',
    path: `${ACCOUNT}/machines/{id}/actions/check-out`,
    handler: 'functions/machines/check-out-file.ts',
    access: EMIT,
  },
  // A machine's heartbeat (docs/rules.md §14.3), each action also under the older path Keygen keeps
  {
    operation: 'machines.ping',
    method: 'POST',
    path: `${ACCOUNT}/machines/{id}/actions/ping`,
    handler: 'functions/machines/ping.ts',
    access: EMIT,
  },
  {
    operation: 'machines.pingHeartbeat',
    method: 'POST',
    path: `${ACCOUNT}/machines/{id}/actions/ping-heartbeat`,
    handler: 'functions/machines/ping-heartbeat.ts',
    access: EMIT,
  },
  {
    operation: 'machines.reset',
    method: 'POST',
    path: `${ACCOUNT}/machines/{id}/actions/reset`,
    handler: 'functions/machines/reset.ts',
    access: EMIT,
  },
  {
    operation: 'machines.resetHeartbeat',
    method: 'POST',
    path: `${ACCOUNT}/machines/{id}/actions/reset-heartbeat`,
    handler: 'functions/machines/reset-heartbeat.ts',
    access: EMIT,
  },
  {
    operation: 'machines.components',
    method: 'GET',
    path: `${ACCOUNT}/machines/{id}/components`,
    handler: 'functions/machines/components.ts',
    access: READ,
  },
  {
    operation: 'machines.license',
    method: 'GET',
    path: `${ACCOUNT}/machines/{id}/license`,
    handler: 'functions/machines/license.ts',
    access: READ,
  },
  {
    operation: 'machines.processes',
    method: 'GET',
    path: `${ACCOUNT}/machines/{id}/processes`,
    handler: 'functions/machines/processes.ts',
    access: READ,
  },

  // Components
  {
    operation: 'components.create',
    method: 'POST',
    path: `${ACCOUNT}/components`,
    handler: 'functions/components/create.ts',
    access: EMIT,
  },
  { operation: 'components.list', method: 'GET', path: `${ACCOUNT}/components`, handler: 'functions/components/list.ts', access: READ },
  {
    operation: 'components.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/components/{id}`,
    handler: 'functions/components/retrieve.ts',
    access: READ,
  },
  {
    operation: 'components.update',
    method: 'PATCH',
    path: `${ACCOUNT}/components/{id}`,
    handler: 'functions/components/update.ts',
    access: EMIT,
  },
  {
    operation: 'components.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/components/{id}`,
    handler: 'functions/components/delete.ts',
    access: EMIT,
  },
  {
    operation: 'components.machine',
    method: 'GET',
    path: `${ACCOUNT}/components/{id}/machine`,
    handler: 'functions/components/machine.ts',
    access: READ,
  },
  {
    operation: 'components.license',
    method: 'GET',
    path: `${ACCOUNT}/components/{id}/license`,
    handler: 'functions/components/license.ts',
    access: READ,
  },
  {
    operation: 'components.product',
    method: 'GET',
    path: `${ACCOUNT}/components/{id}/product`,
    handler: 'functions/components/product.ts',
    access: READ,
  },

  // Processes
  {
    operation: 'processes.create',
    method: 'POST',
    path: `${ACCOUNT}/processes`,
    handler: 'functions/processes/create.ts',
    access: EMIT,
  },
  { operation: 'processes.list', method: 'GET', path: `${ACCOUNT}/processes`, handler: 'functions/processes/list.ts', access: READ },
  {
    operation: 'processes.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/processes/{id}`,
    handler: 'functions/processes/retrieve.ts',
    access: READ,
  },
  {
    operation: 'processes.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/processes/{id}`,
    handler: 'functions/processes/delete.ts',
    access: EMIT,
  },
  {
    operation: 'processes.ping',
    method: 'POST',
    path: `${ACCOUNT}/processes/{id}/actions/ping`,
    handler: 'functions/processes/ping.ts',
    access: EMIT,
  },
  {
    operation: 'processes.machine',
    method: 'GET',
    path: `${ACCOUNT}/processes/{id}/machine`,
    handler: 'functions/processes/machine.ts',
    access: READ,
  },
  {
    operation: 'processes.license',
    method: 'GET',
    path: `${ACCOUNT}/processes/{id}/license`,
    handler: 'functions/processes/license.ts',
    access: READ,
  },
  {
    operation: 'processes.product',
    method: 'GET',
    path: `${ACCOUNT}/processes/{id}/product`,
    handler: 'functions/processes/product.ts',
    access: READ,
  },

  // Entitlements (their attachments are routed with policies and licenses)
  {
    operation: 'entitlements.create',
    method: 'POST',
    path: `${ACCOUNT}/entitlements`,
    handler: 'functions/entitlements/create.ts',
    access: EMIT,
  },
  {
    operation: 'entitlements.list',
    method: 'GET',
    path: `${ACCOUNT}/entitlements`,
    handler: 'functions/entitlements/list.ts',
    access: READ,
  },
  {
    operation: 'entitlements.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/entitlements/{id}`,
    handler: 'functions/entitlements/retrieve.ts',
    access: READ,
  },
  {
    operation: 'entitlements.update',
    method: 'PATCH',
    path: `${ACCOUNT}/entitlements/{id}`,
    handler: 'functions/entitlements/update.ts',
    access: EMIT,
  },
  {
    operation: 'entitlements.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/entitlements/{id}`,
    handler: 'functions/entitlements/delete.ts',
    access: EMIT,
  },

  // Webhook endpoints
  {
    operation: 'webhookEndpoints.create',
    method: 'POST',
    path: `${ACCOUNT}/webhook-endpoints`,
    handler: 'functions/webhook-endpoints/create.ts',
    access: EMIT,
  },
  {
    operation: 'webhookEndpoints.list',
    method: 'GET',
    path: `${ACCOUNT}/webhook-endpoints`,
    handler: 'functions/webhook-endpoints/list.ts',
    access: READ,
  },
  {
    operation: 'webhookEndpoints.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/webhook-endpoints/{id}`,
    handler: 'functions/webhook-endpoints/retrieve.ts',
    access: READ,
  },
  {
    operation: 'webhookEndpoints.update',
    method: 'PATCH',
    path: `${ACCOUNT}/webhook-endpoints/{id}`,
    handler: 'functions/webhook-endpoints/update.ts',
    access: EMIT,
  },
  {
    operation: 'webhookEndpoints.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/webhook-endpoints/{id}`,
    handler: 'functions/webhook-endpoints/delete.ts',
    access: EMIT,
  },

  // Webhook events
  {
    operation: 'webhookEvents.list',
    method: 'GET',
    path: `${ACCOUNT}/webhook-events`,
    handler: 'functions/webhook-events/list.ts',
    access: READ,
  },
  {
    operation: 'webhookEvents.retrieve',
    method: 'GET',
    path: `${ACCOUNT}/webhook-events/{id}`,
    handler: 'functions/webhook-events/retrieve.ts',
    access: READ,
  },
  {
    operation: 'webhookEvents.delete',
    method: 'DELETE',
    path: `${ACCOUNT}/webhook-events/{id}`,
    handler: 'functions/webhook-events/delete.ts',
    access: WRITE,
  },
  {
    operation: 'webhookEvents.retry',
    method: 'POST',
    path: `${ACCOUNT}/webhook-events/{id}/actions/retry`,
    handler: 'functions/webhook-events/retry.ts',
    access: EMIT,
  },
];

/**
 * Answers every request no route matches: 404 in the API's error format, signed when the path
 * names an existing account (it reads that account and signs with its key).
 */
export const fallback = {
  operation: 'notFound',
  handler: 'functions/not-found.ts',
  access: READ as readonly Access[],
} as const;

export const workers: readonly Worker[] = [
  {
    operation: 'workers.purgeEnvironment',
    queue: 'purge',
    handler: 'functions/workers/purge-environment.ts',
    access: [...TABLE_WRITE, 'queue:purge'],
    batchSize: 1,
    // Each step is a burst of deletes: a few purges at once leave the table to the API.
    maxConcurrency: 2,
  },
  {
    operation: 'workers.cascade',
    queue: 'cascades',
    handler: 'functions/workers/cascade.ts',
    // Removes what hangs on a record removed at once, or clears a deleted user's owner links; the
    // removals announce themselves (events the outbox relay delivers) and continue in the next step's message.
    access: [...TABLE_WRITE, 'queue:cascades'],
    batchSize: 1,
    // Each step is a run of transactions: a few cascades at once leave the table to the API.
    maxConcurrency: 2,
  },
  {
    operation: 'workers.passwordReset',
    queue: 'mail',
    handler: 'functions/workers/password-reset.ts',
    // Hands the reset token over by mail, or in a user.password-reset event (which keeps it sealed).
    access: [...TABLE_WRITE, 'mail:send', 'key:seal'],
    batchSize: 10,
    // Well within SES's sending rate.
    maxConcurrency: 2,
  },
  {
    operation: 'workers.deliverWebhook',
    queue: 'webhooks',
    handler: 'functions/workers/deliver-webhook.ts',
    // Writes the event's outcome, disables an endpoint that answers 410 (an event of its own),
    // and queues the next attempt; unseals the secrets an event delivers.
    access: [...TABLE_WRITE, 'queue:webhooks', 'key:unseal'],
    batchSize: 10,
    // Enough to keep up with a burst of changes (docs/benchmarks.md, "Webhook delivery": 10 did
    // not, locally), each invocation a batch of up to 10 POSTs in parallel; bounded, so a
    // backlog opens at most 200 connections to receivers at once.
    maxConcurrency: 20,
  },
];

export const schedules: readonly Schedule[] = [
  {
    operation: 'workers.sweepHeartbeats',
    handler: 'functions/workers/sweep-heartbeats.ts',
    // Reads the due index and the records it names; writes machines (their heartbeat judged, or
    // their removal with their components and seat), and the events of both (the outbox relay sends their deliveries).
    access: TABLE_WRITE,
    // A machine is judged within two minutes of its deadline (docs/rules.md §14.3).
    everyMinutes: 1,
    // Ample for a minute's due records; a sweep that overruns the next one is harmless (sweep.ts).
    timeoutSeconds: 120,
  },
];

export const streamWorkers: readonly StreamWorker[] = [
  {
    operation: 'workers.relayOutbox',
    handler: 'functions/workers/relay-outbox.ts',
    // Sends to the queues of the outbox entries, and nothing else: the records carry what it sends.
    access: outboxAccess(),
    // A hundred records make ten SendMessageBatch requests at most per queue, sent side by side:
    // well within the timeout, and few invocations under a burst.
    batchSize: 100,
    // No wait: what the relay adds to every delivery, purge and mail is a poll of the stream
    // (four a second per shard) and one invocation. A burst fills batches by itself.
    maxBatchingWindowSeconds: 0,
    // A failing send is retried (with the event source's backoff) for minutes, then the batch goes
    // to the on-failure queue and its shard goes on: a record that cannot be relayed holds back
    // the records behind it only that long.
    retryAttempts: 10,
    // Shorter than the stream's 24 hours, so a record the relay could not hand on for hours (it
    // is throttled, or disabled) is described in the on-failure queue while the stream still holds
    // it, with 12 hours left to replay it (docs/operations.md, "The outbox relay").
    maxRecordAgeSeconds: 12 * 3600,
    timeoutSeconds: 30,
    filters: outboxFilters(),
    failureRetentionSeconds: 14 * 86400,
  },
];
