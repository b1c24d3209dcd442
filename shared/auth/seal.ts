/**
 * Sealing secrets at rest (docs/rules.md §7.2): `seal(plaintext, context)` gives an opaque string that
 * only `unseal(sealed, context)`, with the same context, turns back into the plaintext.
 *
 * Envelope encryption: the plaintext is encrypted with AES-256-GCM (random 96-bit IV, 128-bit
 * tag) under a data key; the data key, wrapped by a key that never leaves its keeper, travels
 * inside the sealed value:
 *
 *   v1.<wrapped data key>.<iv>.<ciphertext>.<tag>        (each part base64url)
 *
 * The keeper is chosen by configuration (config.sealingKey): deployed, a KMS key of the stack
 * (GenerateDataKey / Decrypt); locally, a 32-byte master key file that plays KMS's part. A
 * container asks for one data key and seals many values with it; the data keys it unwraps are
 * kept by their wrapped form, so each is unwrapped once.
 *
 * The context is authenticated (GCM's additional data), not stored: a sealed value copied to
 * another record or purpose, whose context differs, does not unseal.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { serviceClient } from '../client-hooks.ts';
import { config } from '../config.ts';
import { traced } from '../tracer.ts';

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A data key seals at most this many values: far below the 2^32 random IVs GCM allows one key. */
const SEALS_PER_DATA_KEY = 2 ** 24;
/** Unwrapped data keys a container keeps: each sealing container has one at a time. */
const UNWRAPPED_KEPT = 256;

/** A value that is not a sealed value, was altered, or is unsealed with another context. */
export class UnsealError extends Error {
  override name = 'UnsealError';
}

/** AES-256-GCM encryption with a 128-bit tag: the one primitive everything here rests on. */
export function encrypt(key: Uint8Array, iv: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): { ciphertext: Buffer; tag: Buffer } {
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { ciphertext, tag: cipher.getAuthTag() };
}

/** Decrypts and checks the tag; throws UnsealError when it does not match. */
export function decrypt(key: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array, aad: Uint8Array): Buffer {
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new UnsealError('The sealed value is malformed');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new UnsealError('The sealed value does not unseal: altered, or sealed with another context');
  }
}

/** A data key, plain (used here, never stored) and wrapped (stored in each sealed value). */
export interface DataKey {
  plain: Buffer;
  wrapped: Buffer;
}

/** Who wraps and unwraps data keys: KMS, or a master key file standing in for it. */
export interface KeyKeeper {
  newDataKey(): Promise<DataKey>;
  unwrap(wrapped: Buffer): Promise<Buffer>;
}

/** Data keys from a KMS key (GenerateDataKey), unwrapped by KMS Decrypt under that key only. */
export function kmsKeeper(keyId: string, kms = serviceClient(traced(new KMSClient({})), 'kms')): KeyKeeper {
  return {
    async newDataKey() {
      const { Plaintext, CiphertextBlob } = await kms.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256' }));
      if (!Plaintext || !CiphertextBlob) throw new Error('KMS returned no data key');
      return { plain: Buffer.from(Plaintext), wrapped: Buffer.from(CiphertextBlob) };
    },
    async unwrap(wrapped) {
      const { Plaintext } = await kms.send(new DecryptCommand({ KeyId: keyId, CiphertextBlob: wrapped }));
      if (!Plaintext) throw new Error('KMS returned no data key');
      return Buffer.from(Plaintext);
    },
  };
}

const WRAP_AAD = Buffer.from(`${VERSION} data key`);

/** Data keys wrapped with AES-256-GCM under a 32-byte master key read from `path` (once). */
export function masterKeyKeeper(path: string): KeyKeeper {
  let master: Buffer | undefined;
  const masterKey = () => {
    master ??= readFileSync(path);
    if (master.length !== KEY_BYTES) throw new Error(`The master key file ${path} does not hold ${KEY_BYTES} bytes`);
    return master;
  };
  return {
    async newDataKey() {
      const plain = randomBytes(KEY_BYTES);
      const iv = randomBytes(IV_BYTES);
      const { ciphertext, tag } = encrypt(masterKey(), iv, plain, WRAP_AAD);
      return { plain, wrapped: Buffer.concat([iv, ciphertext, tag]) };
    },
    async unwrap(wrapped) {
      const iv = wrapped.subarray(0, IV_BYTES);
      const tag = wrapped.subarray(wrapped.length - TAG_BYTES);
      return decrypt(masterKey(), iv, wrapped.subarray(IV_BYTES, wrapped.length - TAG_BYTES), tag, WRAP_AAD);
    },
  };
}

/**
 * Creates the master key file (32 random bytes, readable by its owner only) unless it exists;
 * an existing file is kept, or everything sealed with it would be lost.
 */
export function createMasterKeyFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(path, randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

const additionalData = (context: string) => Buffer.from(`${VERSION}\0${context}`, 'utf8');

/** A sealed value's parts: version, wrapped data key, IV, ciphertext and tag (all but the version base64url). */
type SealedParts = [version: string, wrapped: string, iv: string, ciphertext: string, tag: string];
const isSealedParts = (parts: string[]): parts is SealedParts => parts.length === 5;
const fromBase64url = (part: string) => Buffer.from(part, 'base64url');

export class Sealer {
  private current?: Promise<DataKey>;
  private sealsLeft = 0;
  /** Unwrapped data keys by their wrapped form (base64url), oldest first. */
  private readonly unwrapped = new Map<string, Promise<Buffer>>();

  constructor(private readonly keeper: KeyKeeper) {}

  async seal(plaintext: string, context = ''): Promise<string> {
    const dataKey = await this.dataKey();
    const iv = randomBytes(IV_BYTES);
    const { ciphertext, tag } = encrypt(dataKey.plain, iv, Buffer.from(plaintext, 'utf8'), additionalData(context));
    return [VERSION, ...[dataKey.wrapped, iv, ciphertext, tag].map((part) => part.toString('base64url'))].join('.');
  }

  async unseal(sealed: string, context = ''): Promise<string> {
    const parts = sealed.split('.');
    if (!isSealedParts(parts) || parts[0] !== VERSION) throw new UnsealError('The value is not sealed in a known format');
    const [, wrapped, iv, ciphertext, tag] = parts;
    const key = await this.unwrap(wrapped, fromBase64url(wrapped));
    return decrypt(key, fromBase64url(iv), fromBase64url(ciphertext), fromBase64url(tag), additionalData(context)).toString('utf8');
  }

  /** The container's data key, asked for once (concurrent seals share the request) and renewed when used up. */
  private dataKey(): Promise<DataKey> {
    if (!this.current || this.sealsLeft <= 0) {
      const requested = this.keeper.newDataKey();
      this.current = requested;
      this.sealsLeft = SEALS_PER_DATA_KEY;
      requested.then(
        // What this container seals, it unseals without asking the keeper.
        (key) => this.remember(key.wrapped.toString('base64url'), Promise.resolve(key.plain)),
        () => {
          if (this.current === requested) this.current = undefined;
        },
      );
    }
    this.sealsLeft -= 1;
    return this.current;
  }

  private unwrap(id: string, wrapped: Buffer): Promise<Buffer> {
    let key = this.unwrapped.get(id);
    if (!key) {
      key = this.keeper.unwrap(wrapped);
      this.remember(id, key);
      // A failed unwrap (the keeper unreachable) is asked again next time.
      key.catch(() => {
        if (this.unwrapped.get(id) === key) this.unwrapped.delete(id);
      });
    }
    return key;
  }

  private remember(id: string, key: Promise<Buffer>): void {
    this.unwrapped.set(id, key);
    if (this.unwrapped.size <= UNWRAPPED_KEPT) return;
    const oldest = this.unwrapped.keys().next();
    if (!oldest.done) this.unwrapped.delete(oldest.value);
  }
}

/** The keeper a configuration names: a KMS key when deployed, a master key file locally. */
function keeperOf(key: { kmsKeyId: string } | { masterKeyFile: string }): KeyKeeper {
  return 'kmsKeyId' in key ? kmsKeeper(key.kmsKeyId) : masterKeyKeeper(key.masterKeyFile);
}

let sealer: Sealer | undefined;
const configuredSealer = () => (sealer ??= new Sealer(keeperOf(config.sealingKey)));

/** Seals `plaintext` for `context` (what it belongs to and what for: the same string unseals it). */
export const seal = (plaintext: string, context?: string): Promise<string> => configuredSealer().seal(plaintext, context);

/** The plaintext of a value `seal` gave for the same context; throws UnsealError otherwise. */
export const unseal = (sealed: string, context?: string): Promise<string> => configuredSealer().unseal(sealed, context);

let signingSealer: Sealer | undefined;

/**
 * The sealer of the accounts' signing keys (shared/auth/signing-key.ts). Deployed, its KMS key is
 * not the one of the other secrets: every API function unseals signing keys, and none of them
 * may thereby unseal a webhook's token.
 */
export const signingKeySealer = (): Sealer => (signingSealer ??= new Sealer(keeperOf(config.signingKeySealingKey)));
