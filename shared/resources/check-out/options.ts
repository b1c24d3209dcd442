/**
 * What a check-out is asked for (docs/rules.md §20.2), read from the query string and the body's
 * `meta` alike: whether to encrypt, the algorithm, the time to live, the records to include.
 * A value the service cannot honour is 400 with its own code and `source.parameter`.
 */
import { InputInvalid } from '../../errors.ts';
import { CHECK_OUT_ALGORITHMS, type CheckOutAlgorithm, ENCRYPTED_ALGORITHM, type FileKind, PLAIN_ALGORITHM } from './certificate.ts';

/** One month (a twelfth of a Gregorian year), Keygen's default. */
export const DEFAULT_TTL = 2_629_746;
/** An hour: a file is meant to be used offline for a while, not re-fetched on every start. */
export const MIN_TTL = 3600;
/** The last instant an ISO 8601 time of four-digit years can name: no expiry lies beyond it. */
const LAST_EXPIRY = Date.parse('9999-12-31T23:59:59.999Z');

/** The records a file may carry besides its own. */
export const LICENSE_FILE_INCLUDES = ['entitlements', 'environment', 'product', 'policy', 'owner'] as const;
export const MACHINE_FILE_INCLUDES = [
  'license',
  'license.entitlements',
  'license.product',
  'license.policy',
  'license.owner',
  'components',
  'environment',
  'owner',
] as const;

export type LicenseFileInclude = (typeof LICENSE_FILE_INCLUDES)[number];
export type MachineFileInclude = (typeof MACHINE_FILE_INCLUDES)[number];

/** As sent; undefined: not given. `ttl: null` asks for a file that never expires. */
export interface CheckOutParameters {
  encrypt?: boolean;
  algorithm?: string;
  ttl?: number | null;
  include?: readonly string[];
}

export interface CheckOutOptions<I extends string> {
  algorithm: CheckOutAlgorithm;
  /** Seconds; null: the file never expires. */
  ttl: number | null;
  /** Each once, in the order asked. */
  includes: I[];
}

const invalid = (parameter: 'algorithm' | 'ttl' | 'include', code: string, detail: string) => new InputInvalid(code, detail, { parameter });

/**
 * The algorithm names the encoding when `encrypt` is not given: `aes-256-gcm+ed25519` alone
 * encrypts. Given both, they must agree.
 */
export function algorithmOf({ encrypt, algorithm }: Pick<CheckOutParameters, 'encrypt' | 'algorithm'>): CheckOutAlgorithm {
  const code = 'CHECKOUT_ALGORITHM_INVALID';
  if (algorithm === undefined) return encrypt ? ENCRYPTED_ALGORITHM : PLAIN_ALGORITHM;
  const known = CHECK_OUT_ALGORITHMS.find((candidate) => candidate === algorithm);
  if (!known) throw invalid('algorithm', code, `algorithm must be one of ${CHECK_OUT_ALGORITHMS.join(', ')}`);
  if (encrypt === true && known === PLAIN_ALGORITHM) {
    throw invalid('algorithm', code, `algorithm ${known} does not encrypt: use ${ENCRYPTED_ALGORITHM} with encrypt`);
  }
  if (encrypt === false && known === ENCRYPTED_ALGORITHM) {
    throw invalid('algorithm', code, `algorithm ${known} encrypts: use ${PLAIN_ALGORITHM} without encrypt`);
  }
  return known;
}

/** The time to live in seconds (null: never expires), for a file issued at `issuedAt` (epoch ms). */
export function ttlOf(ttl: number | null | undefined, issuedAt: number): number | null {
  if (ttl === undefined) return DEFAULT_TTL;
  if (ttl === null) return null;
  const code = 'CHECKOUT_TTL_INVALID';
  if (!Number.isSafeInteger(ttl) || ttl < MIN_TTL) {
    throw invalid('ttl', code, `ttl must be a whole number of seconds, at least ${MIN_TTL} (1 hour), or null for no expiry`);
  }
  if (issuedAt + ttl * 1000 > LAST_EXPIRY) throw invalid('ttl', code, 'ttl is too long: the expiry would fall after the year 9999');
  return ttl;
}

export function includesOf<I extends string>(given: readonly string[] | undefined, allowed: readonly I[]): I[] {
  const includes: I[] = [];
  for (const name of given ?? []) {
    const known = allowed.find((candidate) => candidate === name);
    if (!known) throw invalid('include', 'CHECKOUT_INCLUDE_INVALID', `include '${name}' is not supported: ${allowed.join(', ')}`);
    if (!includes.includes(known)) includes.push(known);
  }
  return includes;
}

export function checkOutOptions(kind: 'license', given: CheckOutParameters, issuedAt: number): CheckOutOptions<LicenseFileInclude>;
export function checkOutOptions(kind: 'machine', given: CheckOutParameters, issuedAt: number): CheckOutOptions<MachineFileInclude>;
export function checkOutOptions(kind: FileKind, given: CheckOutParameters, issuedAt: number): CheckOutOptions<string> {
  return {
    algorithm: algorithmOf(given),
    ttl: ttlOf(given.ttl, issuedAt),
    includes: includesOf(given.include, kind === 'license' ? LICENSE_FILE_INCLUDES : MACHINE_FILE_INCLUDES),
  };
}
