/** Signed license keys: the dataset's template, the default dataset, the key's encoding (shared/resources/licenses/signed-key.ts). */
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import {
  base64url,
  DATASET_MAX_BYTES,
  defaultDataset,
  type LicenseFacts,
  renderTemplate,
  SIGNED_KEY_MAX_LENGTH,
  signedKey,
} from '#shared/resources/licenses/signed-key.ts';

const facts: LicenseFacts = {
  id: 'lic-1',
  account: 'acct-1',
  product: 'prod-1',
  policy: 'pol-1',
  user: { id: 'user-1', email: 'ada@example.com' },
  created: '2030-01-02T03:04:05.006Z',
  expiry: '2031-01-02T03:04:05.006Z',
  duration: null,
};
const bare: LicenseFacts = { ...facts, user: null, expiry: null };

describe('renderTemplate', () => {
  it('replaces each placeholder with its fact', () => {
    expect(renderTemplate('{{id}}/{{account}}/{{product}}/{{policy}}/{{user}}/{{email}}/{{created}}/{{expiry}}', facts)).toBe(
      'lic-1/acct-1/prod-1/pol-1/user-1/ada@example.com/2030-01-02T03:04:05.006Z/2031-01-02T03:04:05.006Z',
    );
  });

  it('reads placeholder names in any case', () => {
    expect(renderTemplate('{{ID}}-{{Email}}-{{pOlIcY}}', facts)).toBe('lic-1-ada@example.com-pol-1');
  });

  it('leaves nothing for facts the license lacks: owner, expiry, duration', () => {
    expect(renderTemplate('[{{user}}][{{email}}][{{expiry}}][{{duration}}]', bare)).toBe('[][][][]');
    expect(renderTemplate('{{duration}}', { ...facts, duration: 2_592_000 })).toBe('2592000');
  });

  it('leaves nothing for unknown placeholders, names of the object prototype included', () => {
    expect(renderTemplate('a{{seats}}b{{constructor}}c{{__proto__}}d{{toString}}e', facts)).toBe('abcde');
  });

  it('keeps text that is not a placeholder as it is', () => {
    const text = 'tier=pro; {{ id }} {id} {{}} {{id {{-id}} }}';
    expect(renderTemplate(text, facts)).toBe(text);
    expect(renderTemplate('{{{id}}}', facts)).toBe('{lic-1}');
  });

  it('substitutes in one pass: a value shaped like a placeholder stays as it is', () => {
    expect(renderTemplate('{{email}}', { ...facts, user: { id: 'u', email: '{{id}}@example.com' } })).toBe('{{id}}@example.com');
  });
});

describe('defaultDataset', () => {
  it('is the compact JSON of the license, its owner and its policy', () => {
    expect(defaultDataset(facts)).toBe(
      '{"account":{"id":"acct-1"},"product":{"id":"prod-1"},"policy":{"id":"pol-1","duration":null},' +
        '"user":{"id":"user-1","email":"ada@example.com"},' +
        '"license":{"id":"lic-1","created":"2030-01-02T03:04:05.006Z","expiry":"2031-01-02T03:04:05.006Z"}}',
    );
    expect(JSON.parse(defaultDataset(bare))).toMatchObject({ user: null, license: { expiry: null } });
  });
});

describe('signedKey', () => {
  it('is key/ + base64url(dataset) + . + base64url(signature), base64url with padding', () => {
    expect(base64url(Buffer.from('a'))).toBe('YQ==');
    expect(base64url(Buffer.from('>>>???'))).toBe('Pj4-Pz8_');
    // The secret key of RFC 8032's first test vector; the signature is checked by tweetnacl.
    const pair = nacl.sign.keyPair.fromSeed(Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex'));
    expect(Buffer.from(pair.publicKey).toString('hex')).toBe('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    const key = signedKey('>>>a', { sign: (message) => Buffer.from(nacl.sign.detached(Buffer.from(message), pair.secretKey)) });
    const [signed = '', signature = ''] = key.split('.');
    expect(signed).toBe('key/Pj4-YQ==');
    expect(signature).toMatch(/^[A-Za-z0-9_-]{86}==$/);
    const bytes = Buffer.from(signature.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    expect(nacl.sign.detached.verify(Buffer.from(signed, 'ascii'), bytes, pair.publicKey)).toBe(true);
  });

  it('is never longer than SIGNED_KEY_MAX_LENGTH', () => {
    const key = signedKey('x'.repeat(DATASET_MAX_BYTES), { sign: () => Buffer.alloc(64) });
    expect(key).toHaveLength(SIGNED_KEY_MAX_LENGTH);
  });
});
