/**
 * Model rules shared by every resource: lengths and metadata limits. Each broken rule is a
 * 422 `<ATTRIBUTE>_<KIND>` pointing at the attribute (DECISIONS §1).
 */
import { unprocessable } from '../http/errors.ts';

export const attributePointer = (attribute: string) => `/data/attributes/${attribute}`;

/** `firstName` → `FIRST_NAME`. */
export const attributeCode = (attribute: string) => attribute.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

export function maxLength(attribute: string, value: string | null | undefined, max: number): void {
  if (value != null && [...value].length > max) {
    throw unprocessable(`${attributeCode(attribute)}_TOO_LONG`, `${attribute} is too long (maximum is ${max} characters)`, attributePointer(attribute));
  }
}

export function oneOf<T extends string>(attribute: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw unprocessable(
      `${attributeCode(attribute)}_NOT_ALLOWED`,
      `${attribute} must be one of ${allowed.join(', ')}`,
      attributePointer(attribute),
    );
  }
  return value as T;
}

const METADATA_MAX_KEYS = 64;
const METADATA_MAX_BYTES = 16 * 1024;

/** What DynamoDB cannot store: numbers beyond 2^53 or not finite, nesting deeper than 32, empty keys. */
function unstorable(value: unknown, depth: number): boolean {
  if (typeof value === 'number') return !Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER;
  if (value === null || typeof value !== 'object') return false;
  if (depth > 31) return true;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return entries.some(([key, v]) => (!Array.isArray(value) && key === '') || unstorable(v, depth + 1));
}

export function metadataRule(metadata: Record<string, unknown> | undefined): void {
  if (metadata === undefined) return;
  if (unstorable(metadata, 1)) {
    throw unprocessable(
      'METADATA_INVALID',
      'metadata may not hold empty keys, numbers beyond ±2^53, or nesting deeper than 32 levels',
      attributePointer('metadata'),
    );
  }
  if (Object.keys(metadata).length > METADATA_MAX_KEYS || Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES) {
    throw unprocessable(
      'METADATA_TOO_LARGE',
      `metadata is too large (at most ${METADATA_MAX_KEYS} keys and ${METADATA_MAX_BYTES / 1024} KB)`,
      attributePointer('metadata'),
    );
  }
}

export const now = () => new Date().toISOString();
