/**
 * An independent reader of license and machine files, the way Keygen's example verifiers read
 * them, sharing no code with the service: tweetnacl for Ed25519, WebCrypto (`crypto.subtle`)
 * for SHA-256 and AES-GCM.
 *
 *   -----BEGIN LICENSE FILE-----            (or MACHINE FILE)
 *   base64 of {"enc","sig","alg"}, wrapped
 *   -----END LICENSE FILE-----
 *
 * `sig` is Ed25519 over "license/<enc>" ("machine/<enc>"); `enc` is base64 of the dataset, or
 * for `aes-256-gcm+ed25519` base64(ciphertext).base64(iv).base64(tag), under SHA-256 of the
 * license key (machine files: the key followed by the machine's fingerprint).
 */
import nacl from 'tweetnacl';

export interface ParsedCertificate {
  kind: 'license' | 'machine';
  enc: string;
  sig: string;
  alg: string;
  /** The armoured body's lines, as they stand in the file. */
  lines: string[];
}

const ARMOUR = /^-----BEGIN (LICENSE|MACHINE) FILE-----\n([A-Za-z0-9+/=\n]+)\n-----END \1 FILE-----\n?$/;

export function parseCertificate(certificate: string): ParsedCertificate {
  const match = ARMOUR.exec(certificate);
  if (!match) throw new Error(`not an armoured license or machine file: ${certificate.slice(0, 80)}`);
  const lines = match[2]!.split('\n');
  const doc = JSON.parse(Buffer.from(lines.join(''), 'base64').toString('utf8')) as Record<string, unknown>;
  for (const member of ['enc', 'sig', 'alg']) {
    if (typeof doc[member] !== 'string') throw new Error(`the file's document has no ${member}`);
  }
  return {
    kind: match[1]!.toLowerCase() as ParsedCertificate['kind'],
    enc: doc.enc as string,
    sig: doc.sig as string,
    alg: doc.alg as string,
    lines,
  };
}

/** Whether `sig` is the account's Ed25519 signature of "<kind>/<enc>"; the key as 64 hex digits. */
export function verifyCertificate(parsed: Pick<ParsedCertificate, 'kind' | 'enc' | 'sig'>, publicKeyHex: string): boolean {
  const signature = Buffer.from(parsed.sig, 'base64');
  if (signature.length !== nacl.sign.signatureLength) return false;
  return nacl.sign.detached.verify(Buffer.from(`${parsed.kind}/${parsed.enc}`, 'utf8'), signature, Buffer.from(publicKeyHex, 'hex'));
}

/** The dataset's JSON text: decoded, or decrypted with `secret` (the license key, plus the fingerprint for a machine file). */
export async function datasetText(parsed: Pick<ParsedCertificate, 'enc' | 'alg'>, secret?: string): Promise<string> {
  if (parsed.alg === 'base64+ed25519') return Buffer.from(parsed.enc, 'base64').toString('utf8');
  if (parsed.alg !== 'aes-256-gcm+ed25519') throw new Error(`unknown algorithm ${parsed.alg}`);
  if (secret === undefined) throw new Error('an encrypted file needs its secret');
  const parts = parsed.enc.split('.');
  if (parts.length !== 3) throw new Error('enc is not ciphertext.iv.tag');
  const [ciphertext, iv, tag] = parts.map((part) => Buffer.from(part, 'base64')) as [Buffer, Buffer, Buffer];
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret));
  const key = await crypto.subtle.importKey('raw', digest, { name: 'AES-GCM' }, false, ['decrypt']);
  // WebCrypto takes the tag at the end of the ciphertext.
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, tagLength: tag.length * 8 }, key, Buffer.concat([ciphertext, tag]));
  return new TextDecoder().decode(plain);
}

/** The dataset, parsed: `{data, included, meta: {issued, expiry, ttl}}`. */
export const readDataset = async (parsed: Pick<ParsedCertificate, 'enc' | 'alg'>, secret?: string): Promise<any> =>
  JSON.parse(await datasetText(parsed, secret));

/** The account's public key as 64 hex digits, from `meta.keys.ed25519` of GET /accounts/<id> (base64 of the hex). */
export const publicKeyFromAccount = (published: string) => Buffer.from(published, 'base64').toString('utf8');
