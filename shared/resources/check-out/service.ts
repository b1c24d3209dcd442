/**
 * Check-outs (docs/rules.md §20): a license or machine file is a signed snapshot of the record as
 * its bearer sees it, with the records it asked to include, for software to verify offline until
 * the file expires. Nothing of the file is stored; the check-out sets the record's `lastCheckOut`
 * and emits `license.checked-out` / `machine.checked-out` in one transaction, conditional on the
 * record still existing. A license's state (suspended, expired) does not matter here: the file
 * carries its status and expiry for the software to judge.
 */

import { randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/actor.ts';
import { authorize, present } from '../../auth/authorize.ts';
import { signingKeyOf } from '../../auth/signing-key.ts';
import { AnswerTooLarge, refused } from '../../errors.ts';
import { emitEvent, originOf } from '../../events/emit.ts';
import type { EventKind } from '../../events/kinds.ts';
import type { ResourceObject } from '../../jsonapi.ts';
import { RecordNotFound } from '../../store/errors.ts';
import { recordKey } from '../../store/keys.ts';
import { getItem, type RecordOf, type StoredItem, toRecord } from '../../store/records.ts';
import { Transaction } from '../../store/transaction.ts';
import { componentDocument } from '../components/document.ts';
import { listMachineComponents } from '../components/service.ts';
import { entitlementDocument } from '../entitlements/document.ts';
import { holderEntitlements } from '../entitlements/holders.ts';
import { environmentDocument } from '../environments/document.ts';
import { retrieveEnvironment } from '../environments/service.ts';
import { licenseDocument } from '../licenses/document.ts';
import type { LicenseRecord } from '../licenses/entity.ts';
import { retrieveLicense } from '../licenses/service.ts';
import { shownLicense } from '../licenses/shown.ts';
import { machineDocument } from '../machines/document.ts';
import type { MachineRecord } from '../machines/entity.ts';
import { policyOf } from '../policies/beside.ts';
import { policyDocument } from '../policies/document.ts';
import { retrievePolicy } from '../policies/service.ts';
import { productDocument } from '../products/document.ts';
import { retrieveProduct } from '../products/service.ts';
import { userDocument } from '../users/document.ts';
import { retrieveUser } from '../users/service.ts';
import { buildCertificate, type CheckOutAlgorithm, ENCRYPTED_ALGORITHM, type FileKind, MAX_DATASET_BYTES } from './certificate.ts';
import {
  type CheckOutOptions,
  type CheckOutParameters,
  checkOutOptions,
  type LicenseFileInclude,
  type MachineFileInclude,
} from './options.ts';

/** A file as the check-out answers it; it is kept nowhere. */
export interface CheckedOutFile {
  /** New for every check-out. */
  id: string;
  kind: FileKind;
  accountId: string;
  environmentId: string | null;
  licenseId: string;
  /** A machine file's machine. */
  machineId?: string;
  certificate: string;
  algorithm: CheckOutAlgorithm;
  includes: string[];
  ttl: number | null;
  issued: string;
  expiry: string | null;
}

type Includer<R> = (actor: Actor, record: R) => Promise<ResourceObject[]>;

/** The license's effective entitlements (its policy's and its own), as `GET /licenses/<id>/entitlements` lists them. */
const entitlementsOf: Includer<LicenseRecord> = async (actor, license) =>
  (await holderEntitlements(actor, 'licenses', license.id)).map(entitlementDocument);

const environmentOf = async (actor: Actor, environmentId: string | null) =>
  environmentId ? [environmentDocument(await retrieveEnvironment(actor, environmentId))] : [];

const userOf = async (actor: Actor, userId: string | null) => (userId ? [userDocument(await retrieveUser(actor, userId))] : []);

const LICENSE_INCLUDES: Record<LicenseFileInclude, Includer<LicenseRecord>> = {
  entitlements: entitlementsOf,
  environment: (actor, license) => environmentOf(actor, license.environmentId),
  product: async (actor, license) => [productDocument(await retrieveProduct(actor, license.productId))],
  policy: async (actor, license) => [policyDocument(await retrievePolicy(actor, license.policyId))],
  owner: (actor, license) => userOf(actor, license.ownerId),
};

/** `license.<name>`: the machine's license and, as JSON:API includes a path, what it names from there. */
const throughLicense =
  (then: Includer<LicenseRecord>): Includer<MachineRecord> =>
  async (actor, machine) => {
    const license = await retrieveLicense(actor, machine.licenseId);
    return [await shownLicense(license), ...(await then(actor, license))];
  };

/** Every component of the machine, page by page. */
const componentsOf: Includer<MachineRecord> = async (actor, machine) => {
  const documents: ResourceObject[] = [];
  let cursor: string | null = null;
  do {
    const page = await listMachineComponents(actor, machine.id, {}, { mode: 'cursor', cursor, size: 100 });
    documents.push(...page.records.map(componentDocument));
    cursor = page.nextCursor ?? null;
  } while (cursor);
  return documents;
};

const MACHINE_INCLUDES: Record<MachineFileInclude, Includer<MachineRecord>> = {
  license: throughLicense(async () => []),
  'license.entitlements': throughLicense(entitlementsOf),
  'license.product': throughLicense(LICENSE_INCLUDES.product),
  'license.policy': throughLicense(LICENSE_INCLUDES.policy),
  'license.owner': throughLicense(LICENSE_INCLUDES.owner),
  components: componentsOf,
  environment: (actor, machine) => environmentOf(actor, machine.environmentId),
  owner: (actor, machine) => userOf(actor, machine.ownerId),
};

/**
 * The included records, each once, in the order the includes were asked. Each is read by the
 * rules of its own type: one the bearer may not read refuses the check-out (403), even where
 * reading it alone would be 404 (the file's record already names it).
 */
async function includedRecords<R, I extends string>(
  actor: Actor,
  record: R,
  names: readonly I[],
  includers: Record<I, Includer<R>>,
): Promise<ResourceObject[]> {
  const lists = await Promise.all(
    names.map((name) =>
      includers[name](actor, record).catch((error: unknown) => {
        if (error instanceof RecordNotFound) throw refused(`This credential may not read what include '${name}' names`);
        throw error;
      }),
    ),
  );
  const seen = new Set<string>();
  return lists.flat().filter((document) => {
    const key = `${document.type}/${document.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** POST|GET /licenses/<id>/actions/check-out */
export async function checkOutLicense(actor: Actor, id: string, given: CheckOutParameters): Promise<CheckedOutFile> {
  const issuedAt = Date.now();
  const options = checkOutOptions('license', given, issuedAt);
  const item = await authorize(actor, 'licenses', id, 'check-out');
  const license = toRecord('licenses', item);
  const policy = await policyOf(license);
  return issue(actor, 'licenses', item, {
    kind: 'license',
    issuedAt,
    options,
    included: await includedRecords(actor, license, options.includes, LICENSE_INCLUDES),
    secret: async () => license.key,
    event: 'license.checked-out',
    document: (record: LicenseRecord) => licenseDocument(record, policy),
    shown: (record: LicenseRecord) => licenseDocument(present(actor, 'licenses', record), policy),
    licenseId: license.id,
  });
}

/** POST|GET /machines/<id>/actions/check-out */
export async function checkOutMachine(actor: Actor, id: string, given: CheckOutParameters): Promise<CheckedOutFile> {
  const issuedAt = Date.now();
  const options = checkOutOptions('machine', given, issuedAt);
  const item = await authorize(actor, 'machines', id, 'check-out');
  const machine = toRecord('machines', item);
  const policy = await policyOf(machine);
  return issue(actor, 'machines', item, {
    kind: 'machine',
    issuedAt,
    options,
    included: await includedRecords(actor, machine, options.includes, MACHINE_INCLUDES),
    secret: async () => `${await licenseKeyOf(machine)}${machine.fingerprint}`,
    event: 'machine.checked-out',
    document: (record: MachineRecord) => machineDocument(record, policy),
    shown: (record: MachineRecord) => machineDocument(record, policy),
    licenseId: machine.licenseId,
    machineId: machine.id,
  });
}

/** The key of a machine's license: what, with the fingerprint, a machine file is encrypted under. */
async function licenseKeyOf(machine: MachineRecord): Promise<string> {
  const license = await getItem(recordKey(machine.accountId, 'licenses', machine.licenseId));
  if (!license) throw new RecordNotFound('licenses', machine.licenseId);
  return toRecord('licenses', license).key;
}

interface Issue<R> {
  kind: FileKind;
  issuedAt: number;
  options: CheckOutOptions<string>;
  included: ResourceObject[];
  /** What an encrypted file's key derives from. */
  secret: () => Promise<string>;
  event: EventKind;
  /** The record as its events show it. */
  document: (record: R) => ResourceObject;
  /** The record as the bearer sees it (GET /<type>/<id>): the file's data. */
  shown: (record: R) => ResourceObject;
  licenseId: string;
  machineId?: string;
}

/**
 * 422 CHECKOUT_FILE_TOO_LARGE: a dataset over MAX_DATASET_BYTES, which only what is included can
 * make (a record alone is a few dozen KB at most); the largest, entitlements and components, can
 * be listed page by page instead.
 */
function fileTooLarge(kind: FileKind, includes: readonly string[], bytes: number): AnswerTooLarge {
  return new AnswerTooLarge(
    'CHECKOUT_FILE_TOO_LARGE',
    `The ${kind} file would carry ${bytes} bytes of records, more than the ${MAX_DATASET_BYTES} a file may: ` +
      `include fewer records (asked: ${includes.join(', ') || 'none'}); entitlements and components can be listed page by page instead`,
    { parameter: 'include' },
  );
}

/**
 * Sets `lastCheckOut` and emits the event in one transaction, and signs the file of the record
 * as that transaction leaves it. The update requires the record to exist: a check-out racing a
 * delete is 404 and writes nothing. A file too large to answer (MAX_DATASET_BYTES) is refused
 * before anything is committed.
 */
async function issue<K extends 'licenses' | 'machines'>(
  actor: Actor,
  type: K,
  item: StoredItem<RecordOf<K>>,
  request: Issue<RecordOf<K>>,
): Promise<CheckedOutFile> {
  const { kind, issuedAt, options, included } = request;
  const key = await signingKeyOf(actor.account);
  const secret = options.algorithm === ENCRYPTED_ALGORITHM ? await request.secret() : undefined;
  const issued = new Date(issuedAt).toISOString();
  const expiry = options.ttl === null ? null : new Date(issuedAt + options.ttl * 1000).toISOString();

  const tx = new Transaction();
  const missing = new RecordNotFound(type, item.id);
  const record = toRecord(type, tx.update(item, { lastCheckOut: issued }, { missing }));
  await emitEvent(tx, originOf(record, actor.scope), request.event, request.document(record));
  // Keygen's member order: data, included, meta.
  const dataset = JSON.stringify({ data: request.shown(record), included, meta: { issued, expiry, ttl: options.ttl } });
  const bytes = Buffer.byteLength(dataset, 'utf8');
  if (bytes > MAX_DATASET_BYTES) throw fileTooLarge(kind, options.includes, bytes);
  const { certificate, algorithm } = buildCertificate({
    kind,
    dataset,
    sign: key.sign,
    ...(secret !== undefined ? { encryption: { secret } } : {}),
  });
  await tx.commit();

  return {
    id: randomUUID(),
    kind,
    accountId: record.accountId,
    environmentId: record.environmentId,
    licenseId: request.licenseId,
    ...(request.machineId ? { machineId: request.machineId } : {}),
    certificate,
    algorithm,
    includes: options.includes,
    ttl: options.ttl,
    issued,
    expiry,
  };
}
