/**
 * What Keygen's SDKs tell of the machine they activate besides its fingerprint, hostname and
 * platform: its `ip`, its number of `cores`, its `memory` and `disk` in bytes. Plain attributes,
 * stored as given and shown on the machine (null when not given); nothing counts them.
 */
import { ruleBroken } from '../../errors.ts';
import { attributePointer, maxLength } from '../rules.ts';

export interface Hardware {
  ip?: string | null;
  cores?: number | null;
  memory?: number | null;
  disk?: number | null;
}

/** The most cores a machine may claim: the largest 32-bit signed integer, as Keygen keeps them. */
const CORES_MAX = 2_147_483_647;

/** An integer within [min, max], or null or absent; else 422 `<ATTRIBUTE>_INVALID`. */
function wholeNumber(attribute: 'cores' | 'memory' | 'disk', value: number | null | undefined, min: number, max: number): void {
  if (value == null || (Number.isInteger(value) && value >= min && value <= max)) return;
  throw ruleBroken(
    `${attribute.toUpperCase()}_INVALID`,
    `${attribute} must be an integer from ${min} to ${max}, or null`,
    attributePointer(attribute),
  );
}

export function hardwareRules(attributes: Hardware): void {
  maxLength('ip', attributes.ip, 255);
  wholeNumber('cores', attributes.cores, 1, CORES_MAX);
  // Bytes: JSON integers a client reads back exactly (JavaScript's safe range).
  wholeNumber('memory', attributes.memory, 0, Number.MAX_SAFE_INTEGER);
  wholeNumber('disk', attributes.disk, 0, Number.MAX_SAFE_INTEGER);
}

/** The hardware a new machine records: null for what the activation did not tell. */
export const hardwareOf = (attributes: Hardware): Required<Hardware> => ({
  ip: attributes.ip ?? null,
  cores: attributes.cores ?? null,
  memory: attributes.memory ?? null,
  disk: attributes.disk ?? null,
});
