/**
 * Check-outs (docs/rules.md §20): license and machine files, answered in a `license-files` or
 * `machine-files` document (POST) or as the file itself (GET). Both read the query string; POST
 * also reads the body's `meta`, whose members win over the query's.
 */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT } from '../../access.ts';
import { declare } from '../../http/declaration.ts';
import { attachment, type Reply } from '../../http/documents.ts';
import { CHECK_OUT_ALGORITHMS, MAX_DATASET_BYTES } from './certificate.ts';
import { checkedOutFileDocument } from './document.ts';
import type { CheckOutParameters } from './options.ts';
import { DEFAULT_TTL, LICENSE_FILE_INCLUDES, MACHINE_FILE_INCLUDES, MIN_TTL } from './options.ts';
import type { CheckedOutFile } from './service.ts';

const describe = {
  encrypt: 'Encrypt the file with the license key (a machine file: the key followed by the fingerprint); default false',
  algorithm: `${CHECK_OUT_ALGORITHMS.join(' or ')}; default the first, or the second with encrypt`,
  ttl: `Seconds until the file expires, at least ${MIN_TTL} (default ${DEFAULT_TTL}, a month); never expires when empty (query) or null (meta)`,
  include: (allowed: readonly string[]) =>
    `Records the file carries besides its own: ${allowed.join(', ')}; at most ${MAX_DATASET_BYTES} bytes of them in all (else 422 CHECKOUT_FILE_TOO_LARGE)`,
};

/** Query values are text: booleans as true/false/1/0, the ttl as digits (empty: no expiry), includes comma-separated. */
const queryOf = (includes: readonly string[]) =>
  z.object({
    encrypt: z.optional(z.enum(['true', 'false', '1', '0']).check(z.describe(describe.encrypt))),
    algorithm: z.optional(z.string().check(z.describe(describe.algorithm))),
    ttl: z.optional(z.string().check(z.describe(describe.ttl))),
    include: z.optional(z.string().check(z.describe(`${describe.include(includes)}, comma-separated`))),
  });

/** `{meta: {...}}`, `{}` or nothing: Keygen's SDKs send `{}` and the options in the query. */
const bodyOf = (includes: readonly string[]) =>
  z.optional(
    z.strictObject({
      meta: z.optional(
        z.strictObject({
          encrypt: z.optional(z.boolean().check(z.describe(describe.encrypt))),
          algorithm: z.optional(z.string().check(z.describe(describe.algorithm))),
          ttl: z.optional(z.nullable(z.number().check(z.describe(describe.ttl)))),
          include: z.optional(z.array(z.string()).check(z.describe(describe.include(includes)))),
        }),
      ),
    }),
  );

const licenseQuery = queryOf(LICENSE_FILE_INCLUDES);
const machineQuery = queryOf(MACHINE_FILE_INCLUDES);
type Query = z.output<typeof licenseQuery>;
type Body = z.output<ReturnType<typeof bodyOf>>;

export const checkOut = {
  license: declare({
    operation: 'licenses.checkOut',
    authorizes: { type: 'licenses', action: 'check-out', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/actions/check-out`,
    access: EMIT,
    summary: 'Check out a license: a signed license file, in a document',
    auth: 'bearer',
    params: ['id'],
    query: licenseQuery,
    body: bodyOf(LICENSE_FILE_INCLUDES),
    answers: { 200: { resource: 'license-files' } },
    faults: [403],
  }),
  licenseFile: declare({
    operation: 'licenses.checkOutFile',
    authorizes: { type: 'licenses', action: 'check-out', record: true },
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/actions/check-out`,
    access: EMIT,
    summary: 'Check out a license: the signed license file itself, to save as <id>.lic',
    auth: 'bearer',
    params: ['id'],
    query: licenseQuery,
    answers: { 200: { file: true } },
    faults: [403],
  }),
  machine: declare({
    operation: 'machines.checkOut',
    authorizes: { type: 'machines', action: 'check-out', record: true },
    method: 'POST',
    path: `${ACCOUNT}/machines/{id}/actions/check-out`,
    access: EMIT,
    summary: 'Check out a machine: a signed machine file, in a document',
    auth: 'bearer',
    params: ['id'],
    query: machineQuery,
    body: bodyOf(MACHINE_FILE_INCLUDES),
    answers: { 200: { resource: 'machine-files' } },
    faults: [403],
  }),
  machineFile: declare({
    operation: 'machines.checkOutFile',
    authorizes: { type: 'machines', action: 'check-out', record: true },
    method: 'GET',
    path: `${ACCOUNT}/machines/{id}/actions/check-out`,
    access: EMIT,
    summary: 'Check out a machine: the signed machine file itself, to save as <id>.lic',
    auth: 'bearer',
    params: ['id'],
    query: machineQuery,
    answers: { 200: { file: true } },
    faults: [403],
  }),
};

const BOOLEANS = { true: true, '1': true, false: false, '0': false } as const;

/** What the request asks for: the query's values read as the body's types, then the body's members over them. */
export function checkOutParameters(query: Query, body?: Body): CheckOutParameters {
  const fromQuery: CheckOutParameters = {};
  if (query.encrypt !== undefined) fromQuery.encrypt = BOOLEANS[query.encrypt];
  if (query.algorithm !== undefined) fromQuery.algorithm = query.algorithm;
  // Not digits: NaN, which the check-out refuses as CHECKOUT_TTL_INVALID.
  if (query.ttl !== undefined) fromQuery.ttl = query.ttl === '' ? null : /^-?\d+$/.test(query.ttl) ? Number(query.ttl) : Number.NaN;
  if (query.include !== undefined) fromQuery.include = query.include.split(',').flatMap((name) => name.trim() || []);
  const fromBody = Object.entries(body?.meta ?? {}).filter(([, value]) => value !== undefined);
  return { ...fromQuery, ...Object.fromEntries(fromBody) };
}

/** The POST answer: `{data: <license-files or machine-files object>}`. */
export const fileDocumentReply = (file: CheckedOutFile): Reply => ({ status: 200, body: { data: checkedOutFileDocument(file) } });

/** The GET answer: the certificate, to save as `<record id>.lic`. */
export const fileReply = (file: CheckedOutFile): Reply => attachment(file.certificate, `${file.machineId ?? file.licenseId}.lic`);
