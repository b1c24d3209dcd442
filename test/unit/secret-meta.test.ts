/**
 * Secret meta values of webhook events: filtered in what is stored, sealed beside it for the
 * event and its retries only, and put back into the delivered payload without touching the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMasterKeyFile, UnsealError } from '#shared/auth/seal.ts';
import { deliveredPayload, secret } from '#shared/events/sealed-meta.ts';
import { splitMeta } from '#shared/events/secret-meta.ts';

const directory = mkdtempSync(join(tmpdir(), 'secret-meta-test-'));
const saved = { file: process.env.SEALING_MASTER_KEY_FILE, kms: process.env.SEALING_KMS_KEY };
process.env.SEALING_MASTER_KEY_FILE = join(directory, 'master.key');
process.env.SEALING_KMS_KEY = '';
createMasterKeyFile(process.env.SEALING_MASTER_KEY_FILE);
afterAll(() => {
  Object.assign(process.env, { SEALING_MASTER_KEY_FILE: saved.file ?? '', SEALING_KMS_KEY: saved.kms ?? '' });
  rmSync(directory, { recursive: true, force: true });
});

const identity = { accountId: 'account-1', event: 'user.password-reset', idempotencyToken: 'token-1' };

describe('secret meta', () => {
  it('splits what is shown (secrets filtered) from the secrets, and never serialises a secret', () => {
    const split = splitMeta({ plain: 1, passwordResetToken: secret('abc') });
    expect(split.shown).toEqual({ plain: 1, passwordResetToken: '[FILTERED]' });
    expect(splitMeta({ plain: 1 })).toEqual({ shown: { plain: 1 } });
    expect(JSON.stringify({ leaked: secret('abc') })).toBe('{"leaked":"[FILTERED]"}');
  });

  it('seals the secrets for one event: they unseal for it and its retries alone', async () => {
    const sealedMeta = await splitMeta({ plain: 1, passwordResetToken: secret('abc') }).sealFor!(identity);
    const payload = '{"data":{},"meta":{"plain":1,"passwordResetToken":"[FILTERED]"}}';
    expect(await deliveredPayload({ ...identity, payload, sealedMeta })).toBe('{"data":{},"meta":{"plain":1,"passwordResetToken":"abc"}}');
    await expect(deliveredPayload({ ...identity, idempotencyToken: 'token-2', payload, sealedMeta })).rejects.toThrow();
  });

  it('delivers the stored payload byte for byte, but for the secrets put back into its meta', async () => {
    const data = '{"type":"users","attributes":{"metadata":{"big":12345678901234567890,"price":1.50,"nested":{"meta":"x"}}}}';
    const payload = `{"data":${data},"meta":{"passwordResetToken":"[FILTERED]","plain":2}}`;
    const sealedMeta = await splitMeta({ passwordResetToken: secret('abc') }).sealFor!(identity);
    expect(sealedMeta).not.toContain('abc');
    expect(await deliveredPayload({ ...identity, payload, sealedMeta })).toBe(
      `{"data":${data},"meta":{"passwordResetToken":"abc","plain":2}}`,
    );
    expect(await deliveredPayload({ ...identity, payload })).toBe(payload);
  });

  it('unseals for the event and its retries only (same account, kind and idempotency token)', async () => {
    const payload = '{"data":{"type":"users"},"meta":{"passwordResetToken":"[FILTERED]"}}';
    const sealedMeta = await splitMeta({ passwordResetToken: secret('abc') }).sealFor!(identity);
    for (const other of [{ idempotencyToken: 'token-2' }, { accountId: 'account-2' }, { event: 'user.updated' }]) {
      await expect(deliveredPayload({ ...identity, ...other, payload, sealedMeta })).rejects.toThrow(UnsealError);
    }
  });
});
