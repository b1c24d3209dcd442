import type { Node } from 'constructs';

/** What an operator may set per deployment, with `-c key=value` or in cdk.json's context. */
export interface OperatorSettings {
  /** Sender of the password-reset mail; must be an SES-verified address or domain. */
  mailFrom: string;
  /** Lets webhook endpoints resolve to private addresses (off outside trusted networks). */
  allowPrivateWebhookTargets: boolean;
  /** Seconds between webhook delivery attempts, comma-separated; the service default when absent. */
  webhookRetryDelays?: string;
  /** Base URL the API is reached at (e.g. a custom domain); the API's own endpoint when absent. */
  publicUrl?: string;
  /** Requests a minute per source address to each unauthenticated route; the service default (60) when absent. */
  rateLimitPerAddress?: number;
  /** Requests a second API Gateway passes to each route without an override of its own; `defaultThrottle` when absent. */
  throttleRate?: number;
  /** Requests at once (the burst) API Gateway passes to each such route; `defaultThrottle` when absent. */
  throttleBurst?: number;
  /** Addresses the alarm topic mails (each confirms its subscription once); none when absent. */
  alarmEmail?: readonly string[];
  /** Reserved concurrency by operation (`licenses.validateKey` → 100); none when absent. */
  reservedConcurrency?: Readonly<Record<string, number>>;
  /** AWS X-Ray tracing of every function (docs/operations.md, "Tracing"); on unless set to false. */
  tracing: boolean;
}

export const defaultMailFrom = 'no-reply@example.com';

/**
 * Reads the settings from CDK context. Values given with `-c` arrive as strings while cdk.json
 * can hold booleans and arrays, so both shapes are accepted; anything else stops the synth with
 * a message naming the setting, rather than deploying a service that fails at runtime.
 */
export function readOperatorSettings(node: Node): OperatorSettings {
  return {
    mailFrom: readMailFrom(node.tryGetContext('mailFrom')),
    allowPrivateWebhookTargets: readBoolean('allowPrivateWebhookTargets', node.tryGetContext('allowPrivateWebhookTargets')),
    webhookRetryDelays: readDelays(node.tryGetContext('webhookRetryDelays')),
    publicUrl: readUrl(node.tryGetContext('publicUrl')),
    rateLimitPerAddress: readPositiveWhole('rateLimitPerAddress', node.tryGetContext('rateLimitPerAddress')),
    throttleRate: readPositiveWhole('throttleRate', node.tryGetContext('throttleRate')),
    throttleBurst: readPositiveWhole('throttleBurst', node.tryGetContext('throttleBurst')),
    alarmEmail: readAddresses('alarmEmail', node.tryGetContext('alarmEmail')),
    reservedConcurrency: readConcurrency(node.tryGetContext('reservedConcurrency')),
    tracing: readTracing(node),
  };
}

const plainAddress = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

function readMailFrom(value: unknown): string {
  if (value === undefined) return defaultMailFrom;
  if (typeof value !== 'string' || !plainAddress.test(value)) {
    throw new Error(`mailFrom must be a plain e-mail address such as ${defaultMailFrom}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function readBoolean(name: string, value: unknown): boolean {
  if (value === undefined || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

/** Normalises to `60,300,1800` so the functions parse one shape only. */
function readDelays(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  const parts = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [String(value)];
  const delays = parts.map((part) => part.trim());
  if (!delays.every((delay) => /^\d+$/.test(delay))) {
    throw new Error(`webhookRetryDelays must be whole seconds separated by commas, e.g. 60,300,1800; got ${JSON.stringify(value)}`);
  }
  return delays.map(Number).join(',');
}

/** One address or several (comma-separated, or an array in cdk.json): several at once let a new one confirm before an old one goes. */
function readAddresses(name: string, value: unknown): readonly string[] | undefined {
  if (value === undefined || value === '') return undefined;
  const parts: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
  const addresses = parts.map((part) => (typeof part === 'string' ? part.trim() : ''));
  if (!addresses.every((address) => plainAddress.test(address))) {
    throw new Error(`${name} must be plain e-mail addresses separated by commas, e.g. ops@vendor.example; got ${JSON.stringify(value)}`);
  }
  return [...new Set(addresses)];
}

/**
 * `licenses.validateKey=100,licenses.validate=50` from `-c`, or an object in cdk.json. Whether
 * each name is an operation of the service is checked where the functions are (lib/concurrency.ts).
 */
function readConcurrency(value: unknown): Readonly<Record<string, number>> | undefined {
  if (value === undefined || value === '') return undefined;
  const pairs: unknown[][] =
    typeof value === 'string'
      ? value.split(',').map((pair) => pair.split('='))
      : typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.entries(value)
        : [[value]];
  const reserved: Record<string, number> = {};
  for (const pair of pairs) {
    const [operation, count] = pair.map((part) => String(part).trim());
    if (pair.length !== 2 || !/^[A-Za-z][\w.]*$/.test(operation) || !/^[1-9]\d*$/.test(count)) {
      throw new Error(
        `reservedConcurrency must map operations to whole numbers above 0, e.g. licenses.validateKey=100,licenses.validate=50; got ${JSON.stringify(value)}`,
      );
    }
    reserved[operation] = Number(count);
  }
  return reserved;
}

function readPositiveWhole(name: string, value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  const text = String(value).trim();
  if (!/^[1-9]\d*$/.test(text)) throw new Error(`${name} must be a whole number above 0, got ${JSON.stringify(value)}`);
  return Number(text);
}

/** Drops a trailing slash so that functions can append paths that start with `/`. */
function readUrl(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new Error(`publicUrl must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  return value.replace(/\/+$/, '');
}

/**
 * Tracing is on by default: X-Ray bills per trace recorded and Lambda samples by its default rule
 * (the first request each second and 5 % of the rest), so a busy service pays for a sample, not for
 * every request.
 */
function readTracing(node: Node): boolean {
  return readBoolean('tracing', node.tryGetContext('tracing') ?? true);
}
