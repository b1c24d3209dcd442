/**
 * Each account's Ed25519 signing key (RFC 8032), with which the service signs its answers
 * (shared/http/signature.ts), license and machine files and signed license keys.
 *
 * The key pair is made with the account (or, for an account made before signing keys existed,
 * on its first use: a conditional write, so when two containers race the first writer's key is
 * the one every container uses). The private half is stored only sealed (shared/auth/seal.ts,
 * with the signing keys' own keeper) on the account item, which every request reads anyway; a
 * container unseals it once and keeps it.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../logger.ts';
import { db, getTable } from '../store/client.ts';
import type { AccessPattern } from '../store/data-model.ts';
import { accountKey } from '../store/keys.ts';
import { signingKeySealer } from './seal.ts';

/** The signing key as the account item stores it. */
export interface StoredSigningKey {
  /** The 32-byte public key, lower-case hex. */
  publicKey: string;
  /** The 32-byte private seed, sealed for this account (see sealContext). */
  sealedPrivateKey: string;
}

/** A signing key ready to use. */
export interface SigningKey {
  /** The 32-byte public key, lower-case hex. */
  publicKey: string;
  /** The key as the account item holds it. */
  stored: StoredSigningKey;
  sign(message: Buffer | string): Buffer;
}

/** The attribute of the account item that holds its signing key. */
export const SIGNING_KEY_ATTRIBUTE = 'signingKey';

/** What a sealed private key is bound to: a sealed key copied to another account does not unseal. */
const sealContext = (accountId: string) => `signing-key:${accountId}`;

// DER prefixes of an Ed25519 key's PKCS#8 and SPKI encodings (RFC 8410): the raw 32 bytes follow.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const privateKeyFromSeed = (seed: Buffer) => createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
const rawPublicKey = (key: KeyObject) => createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);

/** The key pair of a 32-byte private seed (RFC 8032's secret key): its public key (hex) and its signer. */
export function keyFromSeed(seed: Buffer): Pick<SigningKey, 'publicKey' | 'sign'> {
  const privateKey = privateKeyFromSeed(seed);
  return { publicKey: rawPublicKey(privateKey).toString('hex'), sign: (message) => sign(null, Buffer.from(message), privateKey) };
}

/** An Ed25519 public key, given as 32 bytes of lower-case hex, as a key object to verify with. */
export const publicKeyFromHex = (hex: string) =>
  createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });

/** `meta.keys.ed25519` of an account: base64 of the public key's lower-case hex (Keygen's encoding). */
export const publishedPublicKey = (key: { publicKey: string }) => Buffer.from(key.publicKey, 'utf8').toString('base64');

/** A new key pair for an account, its private half sealed. */
export async function newSigningKey(accountId: string): Promise<StoredSigningKey> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_PREFIX.length);
  return {
    publicKey: rawPublicKey(privateKey).toString('hex'),
    sealedPrivateKey: await signingKeySealer().seal(seed.toString('hex'), sealContext(accountId)),
  };
}

/** Unsealed keys by account, each unsealed once per container (concurrent first uses share it). */
const unsealed = new Map<string, Promise<SigningKey>>();

/**
 * The account's signing key: the one its item holds (`stored`, as the request read it), else
 * one made now and written unless another writer was first.
 */
export function signingKeyOf(account: { id: string; signingKey?: StoredSigningKey }): Promise<SigningKey> {
  let key = unsealed.get(account.id);
  if (!key) {
    key = loadSigningKey(account.id, account.signingKey);
    unsealed.set(account.id, key);
    // A failure (the keeper unreachable) is tried again on the next use.
    key.catch(() => {
      if (unsealed.get(account.id) === key) unsealed.delete(account.id);
    });
  }
  return key;
}

/**
 * The signing key of the account `accountId` for a worker, which holds no request's account item:
 * the item is read only when the container holds no key for the account yet.
 */
export async function signingKeyOfAccount(accountId: string): Promise<SigningKey> {
  const held = unsealed.get(accountId);
  if (held) return held;
  const { Item } = await db().send(new GetCommand({ TableName: getTable(), Key: accountKey(accountId) }));
  return signingKeyOf({ id: accountId, signingKey: Item?.[SIGNING_KEY_ATTRIBUTE] as StoredSigningKey | undefined });
}

async function loadSigningKey(accountId: string, stored: StoredSigningKey | undefined): Promise<SigningKey> {
  const held = stored ?? (await provisionSigningKey(accountId));
  const seed = Buffer.from(await signingKeySealer().unseal(held.sealedPrivateKey, sealContext(accountId)), 'hex');
  const key = keyFromSeed(seed);
  if (key.publicKey !== held.publicKey) throw new Error(`The signing key of account ${accountId} is inconsistent`);
  return { ...key, stored: held };
}

/**
 * The account's key as stored, to show its public half: the one the account holds (nothing to
 * unseal), else one given now; undefined, and the failure logged, when none can be given — like
 * signing, showing the key never fails a request.
 */
export async function storedSigningKeyOf(account: { id: string; signingKey?: StoredSigningKey }): Promise<StoredSigningKey | undefined> {
  if (account.signingKey) return account.signingKey;
  try {
    return (await signingKeyOf(account)).stored;
  } catch (error) {
    logger.error('the account has no signing key to show', { accountId: account.id, error: error as Error });
    return undefined;
  }
}

/** Gives an account made before signing keys existed its key; the first writer wins a race (exported for the data-model tests). */
export async function provisionSigningKey(accountId: string): Promise<StoredSigningKey> {
  const made = await newSigningKey(accountId);
  try {
    await db().send(
      new UpdateCommand({
        TableName: getTable(),
        Key: accountKey(accountId),
        UpdateExpression: 'SET #key = :key',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#key)',
        ExpressionAttributeNames: { '#key': SIGNING_KEY_ATTRIBUTE },
        ExpressionAttributeValues: { ':key': made },
      }),
    );
    return made;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const { Item } = await db().send(new GetCommand({ TableName: getTable(), Key: accountKey(accountId), ConsistentRead: true }));
    const winner = Item?.[SIGNING_KEY_ATTRIBUTE] as StoredSigningKey | undefined;
    if (!winner) throw new Error(`Account ${accountId} no longer exists`);
    return winner;
  }
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 38,
    name: 'Give an account its signing key',
    operation:
      "UpdateItem `SET signingKey` if `attribute_exists(PK) AND attribute_not_exists(signingKey)`; on a failed condition, GetItem (consistent) of the winner's key",
    index: 'table',
    key: '`PK = ACCOUNT#<id>`',
    usedBy: 'the first answer signed for an account made before signing keys (`provisionSigningKey`, shared/auth/signing-key.ts)',
    tests: ['store/data-model'],
  },
];
