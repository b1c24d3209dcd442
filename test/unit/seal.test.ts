/**
 * The sealing module: round trips, tampering and a wrong context refused, the KMS path (one
 * data key per container, each wrapped key unwrapped once) against a mocked KMS client, the
 * local master key file, and two checks against implementations that are not ours: a published
 * AES-256-GCM test vector, and WebCrypto decrypting a sealed value.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createMasterKeyFile,
  decrypt,
  encrypt,
  type KeyKeeper,
  kmsKeeper,
  masterKeyKeeper,
  Sealer,
  seal,
  UnsealError,
  unseal,
} from '#shared/auth/seal.ts';

const directory = mkdtempSync(join(tmpdir(), 'seal-test-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const masterKeyFile = (name: string) => {
  const file = join(directory, name);
  createMasterKeyFile(file);
  return file;
};

/** A keeper whose data key the test knows: what a mocked KMS hands out. */
function knownKeeper(plain = randomBytes(32)): KeyKeeper & { plain: Buffer } {
  const wrapped = Buffer.from('wrapped-data-key');
  return { plain, newDataKey: async () => ({ plain, wrapped }), unwrap: async () => plain };
}

const hex = (value: string) => Buffer.from(value.replace(/\s+/g, ''), 'hex');

/** Flips one bit of byte `at` in part `index` (1 wrapped key, 2 IV, 3 ciphertext, 4 tag) of a sealed value. */
function flip(sealed: string, index: number, at = 0): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[at]! ^= 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('seal and unseal', () => {
  const sealer = new Sealer(masterKeyKeeper(masterKeyFile('round-trip.key')));

  it('round-trips any text, each seal different (a fresh IV each time)', async () => {
    for (const plaintext of ['', 'a reset token', '🔑 ünïcode', 'x'.repeat(100_000)]) {
      const sealed = await sealer.seal(plaintext, 'users/1 password');
      expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]*\.[\w-]+$/);
      expect(await sealer.unseal(sealed, 'users/1 password')).toBe(plaintext);
    }
    const [a, b] = [await sealer.seal('same'), await sealer.seal('same')];
    expect(a).not.toBe(b);
    expect(a.split('.')[2]).not.toBe(b.split('.')[2]);
    expect(await sealer.unseal(a)).toBe('same');
  });

  it('refuses a flipped byte in the IV, the ciphertext, the tag or the wrapped data key', async () => {
    const sealed = await sealer.seal('a secret worth keeping', 'context');
    for (const [part, at] of [
      [2, 0],
      [2, 11],
      [3, 0],
      [3, 21],
      [4, 0],
      [4, 15],
      [1, 0],
      [1, 20],
    ] as const) {
      await expect(sealer.unseal(flip(sealed, part, at), 'context'), `part ${part} byte ${at}`).rejects.toThrow(UnsealError);
    }
  });

  it('refuses another context, and no context for a value sealed with one', async () => {
    const sealed = await sealer.seal('bound', 'webhook-event meta\0account-a\0user.password-reset\0token-1');
    await expect(sealer.unseal(sealed, 'webhook-event meta\0account-b\0user.password-reset\0token-1')).rejects.toThrow(UnsealError);
    await expect(sealer.unseal(sealed)).rejects.toThrow(UnsealError);
    await expect(new Sealer(masterKeyKeeper(masterKeyFile('other.key'))).unseal(await sealer.seal('x'))).rejects.toThrow(UnsealError);
  });

  it('refuses what is not a sealed value of a known format, a truncated one included', async () => {
    const sealed = await sealer.seal('a secret');
    const parts = sealed.split('.');
    for (const value of [
      '',
      'a secret',
      `v2.${parts.slice(1).join('.')}`,
      parts.slice(0, 4).join('.'),
      `${sealed}.x`,
      [...parts.slice(0, 4), parts[4]!.slice(0, 10)].join('.'),
    ]) {
      await expect(sealer.unseal(value), value).rejects.toThrow(UnsealError);
    }
  });

  it('seals and unseals through the configured keeper: the master key file named by SEALING_MASTER_KEY_FILE', async () => {
    const saved = { file: process.env.SEALING_MASTER_KEY_FILE, kms: process.env.SEALING_KMS_KEY };
    const file = masterKeyFile('configured.key');
    Object.assign(process.env, { SEALING_MASTER_KEY_FILE: file, SEALING_KMS_KEY: '' });
    try {
      const sealed = await seal('configured', 'ctx');
      expect(await unseal(sealed, 'ctx')).toBe('configured');
      // The same key file, another container: it unseals.
      expect(await new Sealer(masterKeyKeeper(file)).unseal(sealed, 'ctx')).toBe('configured');
    } finally {
      Object.assign(process.env, { SEALING_MASTER_KEY_FILE: saved.file ?? '', SEALING_KMS_KEY: saved.kms ?? '' });
    }
  });
});

describe('the local master key file', () => {
  it('is created once: 32 random bytes, readable and writable by its owner only, never replaced', () => {
    const file = join(directory, 'nested', 'dir', 'master.key');
    createMasterKeyFile(file);
    const key = readFileSync(file);
    expect(key).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    createMasterKeyFile(file);
    expect(readFileSync(file)).toEqual(key);
  });

  it('is refused when it does not hold a 32-byte key', async () => {
    const file = join(directory, 'short.key');
    writeFileSync(file, randomBytes(16));
    await expect(new Sealer(masterKeyKeeper(file)).seal('x')).rejects.toThrow(/32 bytes/);
  });
});

describe('the KMS keeper', () => {
  const KEY_ID = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  const kms = mockClient(KMSClient);
  const plain = randomBytes(32);
  const blob = Buffer.concat([Buffer.from('kms-blob:'), randomBytes(32)]);
  afterAll(() => kms.restore());
  beforeEach(() => {
    kms.reset();
    kms.on(GenerateDataKeyCommand).resolves({ Plaintext: plain, CiphertextBlob: blob, KeyId: KEY_ID });
    kms.on(DecryptCommand).callsFake(async (input: { CiphertextBlob: Uint8Array }) => {
      if (!Buffer.from(input.CiphertextBlob).equals(blob))
        throw Object.assign(new Error('InvalidCiphertextException'), { name: 'InvalidCiphertextException' });
      return { Plaintext: plain, KeyId: KEY_ID };
    });
  });
  const keeper = () => kmsKeeper(KEY_ID, new KMSClient({ region: 'eu-west-1' }));

  it('asks for one data key for many seals, concurrent ones included, and carries it wrapped in each', async () => {
    const sealer = new Sealer(keeper());
    const sealed = await Promise.all(Array.from({ length: 10 }, (_, i) => sealer.seal(`secret ${i}`, `record ${i}`)));
    for (let i = 10; i < 20; i++) sealed.push(await sealer.seal(`secret ${i}`, `record ${i}`));
    const calls = kms.commandCalls(GenerateDataKeyCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({ KeyId: KEY_ID, KeySpec: 'AES_256' });
    for (const value of sealed) expect(Buffer.from(value.split('.')[1]!, 'base64url')).toEqual(blob);
    // What a container sealed it unseals without asking KMS.
    expect(await sealer.unseal(sealed[3]!, 'record 3')).toBe('secret 3');
    expect(kms.commandCalls(DecryptCommand)).toHaveLength(0);
  });

  it('unwraps a data key once per container, by KMS Decrypt under the stack key, however many values it unseals', async () => {
    const sealed = await Promise.all(Array.from({ length: 5 }, (_, i) => new Sealer(keeper()).seal(`secret ${i}`, `record ${i}`)));
    kms.resetHistory();
    const other = new Sealer(keeper());
    expect(await Promise.all(sealed.map((value, i) => other.unseal(value, `record ${i}`)))).toEqual(sealed.map((_, i) => `secret ${i}`));
    for (let i = 0; i < 5; i++) expect(await other.unseal(sealed[i]!, `record ${i}`)).toBe(`secret ${i}`);
    const calls = kms.commandCalls(DecryptCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({ KeyId: KEY_ID, CiphertextBlob: blob });
    expect(kms.commandCalls(GenerateDataKeyCommand)).toHaveLength(0);
  });

  it('asks KMS again after a failure, rather than keeping it', async () => {
    kms.on(GenerateDataKeyCommand).rejectsOnce(new Error('ThrottlingException')).resolves({ Plaintext: plain, CiphertextBlob: blob });
    const sealer = new Sealer(keeper());
    await expect(sealer.seal('x')).rejects.toThrow('ThrottlingException');
    const sealed = await sealer.seal('x');
    expect(kms.commandCalls(GenerateDataKeyCommand)).toHaveLength(2);

    kms.on(DecryptCommand).rejectsOnce(new Error('KMSInternalException')).resolves({ Plaintext: plain });
    const other = new Sealer(keeper());
    await expect(other.unseal(sealed)).rejects.toThrow('KMSInternalException');
    expect(await other.unseal(sealed)).toBe('x');
  });

  it('does not unseal a value whose wrapped data key KMS refuses', async () => {
    const sealed = await new Sealer(keeper()).seal('x');
    await expect(new Sealer(keeper()).unseal(flip(sealed, 1, 3))).rejects.toThrow('InvalidCiphertextException');
  });
});

describe('against implementations that are not ours', () => {
  it('encrypts and decrypts the published AES-256-GCM test case 16 (McGrew & Viega, "The Galois/Counter Mode of Operation")', () => {
    const key = hex('feffe9928665731c6d6a8f9467308308 feffe9928665731c6d6a8f9467308308');
    const iv = hex('cafebabefacedbaddecaf888');
    const plaintext = hex(`d9313225f88406e5a55909c5aff5269a 86a7a9531534f7da2e4c303d8a318a72
      1c3c0c95956809532fcf0e2449a6b525 b16aedf5aa0de657ba637b39`);
    const aad = hex('feedfacedeadbeeffeedfacedeadbeef abaddad2');
    const expected = {
      ciphertext: hex(`522dc1f099567d07f47f37a32a84427d 643a8cdcbfe5c0c97598a2bd2555d1aa
        8cb08e48590dbb3da7b08b1056828838 c5f61e6393ba7a0abcc9f662`),
      tag: hex('76fc6ece0f4e1768cddf8853bb2d551b'),
    };
    expect(encrypt(key, iv, plaintext, aad)).toEqual(expected);
    expect(decrypt(key, iv, expected.ciphertext, expected.tag, aad)).toEqual(plaintext);
  });

  it('seals values WebCrypto decrypts (AES-GCM, the data key, the IV, "v1\\0<context>" as additional data)', async () => {
    const keeper = knownKeeper();
    const sealed = await new Sealer(keeper).seal('checked elsewhere ✓', 'users/42 signing key');
    const [, , iv, ciphertext, tag] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    const key = await crypto.subtle.importKey('raw', keeper.plain, 'AES-GCM', false, ['decrypt']);
    const decrypted = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: iv!, additionalData: Buffer.from('v1\0users/42 signing key'), tagLength: 128 },
      key,
      Buffer.concat([ciphertext!, tag!]),
    );
    expect(Buffer.from(decrypted).toString('utf8')).toBe('checked elsewhere ✓');
    await expect(
      crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: iv!, additionalData: Buffer.from('v1\0users/43 signing key'), tagLength: 128 },
        key,
        Buffer.concat([ciphertext!, tag!]),
      ),
    ).rejects.toThrow();
  });
});
