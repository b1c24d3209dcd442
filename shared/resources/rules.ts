/**
 * Model rules shared by every resource: lengths and metadata limits. Each broken rule is a
 * 422 `<ATTRIBUTE>_<KIND>` pointing at the attribute (docs/rules.md §2.2).
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { ruleBroken } from '../errors.ts';
import type { Scope } from '../store/scope.ts';

export const attributePointer = (attribute: string) => `/data/attributes/${attribute}`;

/** `firstName` → `FIRST_NAME`. */
export const attributeCode = (attribute: string) => attribute.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

export function maxLength(attribute: string, value: string | null | undefined, max: number): void {
  if (value != null && [...value].length > max) {
    throw ruleBroken(
      `${attributeCode(attribute)}_TOO_LONG`,
      `${attribute} is too long (maximum is ${max} characters)`,
      attributePointer(attribute),
    );
  }
}

export function oneOf<T extends string>(attribute: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw ruleBroken(
      `${attributeCode(attribute)}_NOT_ALLOWED`,
      `${attribute} must be one of ${allowed.join(', ')}`,
      attributePointer(attribute),
    );
  }
  return value as T;
}

const METADATA_MAX_KEYS = 64;
export const METADATA_MAX_BYTES = 16 * 1024;
/** Levels of objects and arrays within `metadata` (the object itself is the first). */
export const METADATA_MAX_DEPTH = 64;

/** Free-form metadata of a record: a JSON object. */
export type Metadata = Record<string, unknown>;

/**
 * The `metadata` attribute of a body: any JSON object, passed on untouched (zod's record builds
 * a copy, and a copy made by assignment loses a `__proto__` key). The store keeps it as JSON
 * text (shared/store/records.ts), so whatever its keys (`constructor`, `toString`, `__proto__`)
 * and numbers (of any magnitude JSON.parse reads as a finite number) it comes back as sent.
 * Refused with 400 at the value: nesting past METADATA_MAX_DEPTH levels (its size is counted
 * by serialising it, which deep nesting would overflow), and a number past ±1.8e308, which
 * JSON.parse reads as Infinity and JSON.stringify would give back as null.
 */
export const metadataSchema = () =>
  z
    .custom<Metadata>((value) => value !== null && typeof value === 'object' && !Array.isArray(value), {
      message: 'type mismatch (expected object)',
    })
    .check(
      z.superRefine((metadata, ctx) => {
        const fault = metadataFault(metadata);
        if (fault) ctx.addIssue({ code: 'custom', message: fault.message, path: fault.path, input: metadata });
      }),
    );

/** The first value of `metadata` it may not hold, with its path; walked without recursion, however deep. */
function metadataFault(metadata: Metadata): { path: PropertyKey[]; message: string } | undefined {
  const pending: { value: unknown; path: PropertyKey[] }[] = [{ value: metadata, path: [] }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === 'number' && !Number.isFinite(value)) {
      return { path, message: 'is a number out of range (at most ±1.7976931348623157e308)' };
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= METADATA_MAX_DEPTH)
      return { path, message: `is nested too deep (metadata holds at most ${METADATA_MAX_DEPTH} levels)` };
    const entries: [PropertyKey, unknown][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value);
    for (const [key, item] of entries.reverse()) pending.push({ value: item, path: [...path, key] });
  }
  return undefined;
}

export function metadataRule(metadata: Metadata | undefined): void {
  if (metadata === undefined) return;
  if (Object.keys(metadata).length > METADATA_MAX_KEYS || Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES) {
    throw ruleBroken(
      'METADATA_TOO_LARGE',
      `metadata is too large (at most ${METADATA_MAX_KEYS} keys and ${METADATA_MAX_BYTES / 1024} KB)`,
      attributePointer('metadata'),
    );
  }
}

export const now = () => new Date().toISOString();

/** What every record a request creates starts with: its type, a new id, the request's account and environment, and its times (both `at`). */
export const newRecord = <T extends string>(type: T, scope: Pick<Scope, 'accountId' | 'environmentId'>, at = now()) => ({
  type,
  id: randomUUID(),
  accountId: scope.accountId,
  environmentId: scope.environmentId,
  created: at,
  updated: at,
});
