/**
 * Model rules shared by every resource: lengths and metadata limits. Each broken rule is a
 * 422 `<ATTRIBUTE>_<KIND>` pointing at the attribute (docs/rules.md §1).
 */
import * as z from 'zod/mini';
import { ruleBroken } from '../errors.ts';

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
const METADATA_MAX_BYTES = 16 * 1024;

/**
 * The `metadata` attribute of a body: any JSON object, passed on untouched. (zod's record
 * builds a copy, and a copy made by assignment loses a `__proto__` key.) The store keeps it as
 * JSON text, so any JSON within the limits below comes back exactly as sent.
 */
/** Free-form metadata of a record: a JSON object. */
export type Metadata = Record<string, unknown>;

export const metadataSchema = () =>
  z.custom<Metadata>((value) => value !== null && typeof value === 'object' && !Array.isArray(value), {
    message: 'type mismatch (expected object)',
  });

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
