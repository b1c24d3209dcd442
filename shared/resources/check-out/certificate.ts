/**
 * License and machine files in Keygen's format, which its SDKs and example verifiers read
 * (docs/rules.md §20.4). Pure: the dataset comes in as text, the signature from the key given.
 *
 *   enc    base64(dataset); encrypted: base64(ciphertext).base64(iv).base64(tag), AES-256-GCM
 *          under SHA-256 of the secret (the license key; for a machine file the key followed by
 *          the machine's fingerprint), a random 12-byte IV, no additional data, a 16-byte tag
 *   sig    base64 of the Ed25519 signature of "license/<enc>" ("machine/<enc>")
 *   doc    {"enc","sig","alg"}, compact JSON in that order
 *   file   -----BEGIN LICENSE FILE-----, base64(doc) in lines of 60, -----END LICENSE FILE-----
 *
 * Base64 is the standard alphabet with padding throughout.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';

/** What a file certifies: a license, or one machine of a license. */
export type FileKind = 'license' | 'machine';

/** `<encoding>+<signature>`: how `enc` is made and how it is signed. */
export const PLAIN_ALGORITHM = 'base64+ed25519';
export const ENCRYPTED_ALGORITHM = 'aes-256-gcm+ed25519';
export const CHECK_OUT_ALGORITHMS = [PLAIN_ALGORITHM, ENCRYPTED_ALGORITHM] as const;
export type CheckOutAlgorithm = (typeof CHECK_OUT_ALGORITHMS)[number];

/**
 * The largest dataset a file carries, in bytes of its JSON text (docs/rules.md §20.5). Base64 twice
 * over, in lines of 60, makes a certificate of 16/9 of it and a line break in 61: at most
 * 5,422,521 characters here. The check-out's document answers it as a JSON string, where a line
 * break is `\n`, escaped again as `\\n` in what Lambda sends: about 5.6 MB with the rest of the
 * answer, under the 6,000,000 bytes an answer may be (shared/http/answer-size.ts); the GET's file
 * is smaller still. test/in-process/answer-size.test.ts holds the two bounds together.
 */
export const MAX_DATASET_BYTES = 3_000_000;

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Keygen wraps the armoured document as Ruby's Base64.encode64 does. */
const LINE_LENGTH = 60;

export interface CertificateInput {
  kind: FileKind;
  /** The dataset as JSON text. */
  dataset: string;
  /** Signs with the account's Ed25519 key. */
  sign: (message: Buffer) => Buffer;
  /** Present for an encrypted file: the secret its key derives from; `iv` only where a test must fix it. */
  encryption?: { secret: string; iv?: Buffer };
}

export interface Certificate {
  certificate: string;
  algorithm: CheckOutAlgorithm;
}

export function buildCertificate({ kind, dataset, sign, encryption }: CertificateInput): Certificate {
  const enc = encryption ? encryptDataset(dataset, encryption.secret, encryption.iv) : encodeDataset(dataset);
  const sig = sign(Buffer.from(signedText(kind, enc), 'ascii')).toString('base64');
  const algorithm = encryption ? ENCRYPTED_ALGORITHM : PLAIN_ALGORITHM;
  return { certificate: armour(kind, JSON.stringify({ enc, sig, alg: algorithm })), algorithm };
}

export const encodeDataset = (dataset: string) => Buffer.from(dataset, 'utf8').toString('base64');

export function encryptDataset(dataset: string, secret: string, iv: Buffer = randomBytes(IV_BYTES)): string {
  if (iv.length !== IV_BYTES) throw new Error(`An AES-GCM IV here is ${IV_BYTES} bytes`);
  const key = createHash('sha256').update(secret, 'utf8').digest();
  const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(dataset, 'utf8'), cipher.final()]);
  return [ciphertext, iv, cipher.getAuthTag()].map((part) => part.toString('base64')).join('.');
}

/** What the signature covers: the kind, a slash, and `enc` as it stands in the file. */
export const signedText = (kind: FileKind, enc: string) => `${kind}/${enc}`;

/** The document between the file's armour lines. */
export function armour(kind: FileKind, doc: string): string {
  const label = `${kind.toUpperCase()} FILE`;
  const body = Buffer.from(doc, 'utf8').toString('base64');
  const lines = body.match(new RegExp(`.{1,${LINE_LENGTH}}`, 'g')) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
