/**
 * Where a webhook may be sent (DECISIONS §5): refusing private, loopback, link-local,
 * unique-local and unspecified addresses, IPv4 and IPv6 alike (IPv4-mapped IPv6 addresses
 * are judged by the IPv4 address they carry), unless the operator allows private targets
 * (ALLOW_PRIVATE_WEBHOOK_TARGETS=true; the local stack does).
 *
 * The host is resolved at delivery time and every address it resolves to must be public, so
 * a name that points inside the network is refused however it is spelt.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Address ranges no webhook may reach unless the operator allows private targets. */
export const REFUSED_RANGES: readonly { network: string; prefix: number; family: 'ipv4' | 'ipv6'; why: string }[] = [
  { network: '0.0.0.0', prefix: 8, family: 'ipv4', why: 'unspecified' },
  { network: '10.0.0.0', prefix: 8, family: 'ipv4', why: 'private' },
  { network: '100.64.0.0', prefix: 10, family: 'ipv4', why: 'private (shared address space)' },
  { network: '127.0.0.0', prefix: 8, family: 'ipv4', why: 'loopback' },
  { network: '169.254.0.0', prefix: 16, family: 'ipv4', why: 'link-local' },
  { network: '172.16.0.0', prefix: 12, family: 'ipv4', why: 'private' },
  { network: '192.0.0.0', prefix: 24, family: 'ipv4', why: 'reserved' },
  { network: '192.168.0.0', prefix: 16, family: 'ipv4', why: 'private' },
  { network: '198.18.0.0', prefix: 15, family: 'ipv4', why: 'reserved' },
  { network: '224.0.0.0', prefix: 4, family: 'ipv4', why: 'multicast' },
  { network: '240.0.0.0', prefix: 4, family: 'ipv4', why: 'reserved' },
  { network: '::', prefix: 128, family: 'ipv6', why: 'unspecified' },
  { network: '::1', prefix: 128, family: 'ipv6', why: 'loopback' },
  { network: 'fe80::', prefix: 10, family: 'ipv6', why: 'link-local' },
  { network: 'fec0::', prefix: 10, family: 'ipv6', why: 'site-local' },
  { network: 'fc00::', prefix: 7, family: 'ipv6', why: 'unique-local' },
  { network: 'ff00::', prefix: 8, family: 'ipv6', why: 'multicast' },
];

// BlockList matches an IPv4-mapped IPv6 address (::ffff:a.b.c.d) against the IPv4 rules.
const refused = new BlockList();
for (const range of REFUSED_RANGES) refused.addSubnet(range.network, range.prefix, range.family);

/** NAT64's well-known prefix carries an IPv4 address in its last 32 bits. */
const NAT64 = new BlockList();
NAT64.addSubnet('64:ff9b::', 96, 'ipv6');

/** Whether an IP address (v4 or v6 text) is one a webhook must not reach. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return refused.check(address, 'ipv4');
  if (refused.check(address, 'ipv6')) return true;
  if (NAT64.check(address, 'ipv6')) {
    const last = address.split(':').at(-1)!;
    if (last.includes('.')) return refused.check(last, 'ipv4');
    const [high, low] = address.split(':').slice(-2).map((group) => parseInt(group || '0', 16)) as [number, number];
    return refused.check([high >> 8, high & 255, low >> 8, low & 255].join('.'), 'ipv4');
  }
  return false;
}

/** A URL's host as an IP literal without IPv6 brackets, or the name itself. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Names that always mean this machine, whatever a resolver says. */
const LOCAL_NAMES = /^(localhost|.*\.localhost|localhost\.localdomain)\.?$/i;

/**
 * Whether the host can be told to be refused without resolving it (an IP literal in a refused
 * range, or localhost): used to refuse such URLs at once when an endpoint is saved.
 */
export function isPlainlyPrivate(host: string): boolean {
  if (LOCAL_NAMES.test(host)) return true;
  return isIP(host) !== 0 && isRefusedAddress(host);
}

export type TargetCheck = { allowed: true } | { allowed: false; reason: string };

/**
 * Resolves the URL's host (every address) and refuses it when any address is not public.
 * With private targets allowed, nothing is resolved here: the request itself will tell.
 */
export async function checkTarget(
  url: URL,
  allowPrivate: boolean,
  resolve: (host: string) => Promise<{ address: string }[]> = (host) => lookup(host, { all: true, verbatim: true }),
): Promise<TargetCheck> {
  if (allowPrivate) return { allowed: true };
  const host = hostOf(url);
  if (LOCAL_NAMES.test(host)) return { allowed: false, reason: `Refused: ${host} is this machine` };
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await resolve(host)).map((entry) => entry.address);
  } catch (error) {
    return { allowed: false, reason: `Could not resolve ${host}: ${(error as Error).message}` };
  }
  if (addresses.length === 0) return { allowed: false, reason: `Could not resolve ${host}` };
  const bad = addresses.find(isRefusedAddress);
  if (bad) return { allowed: false, reason: `Refused: ${host} resolves to ${bad}, a private, loopback or link-local address` };
  return { allowed: true };
}
