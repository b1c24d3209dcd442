/**
 * Where a webhook may be sent (docs/rules.md §26.1, §7.4): refusing private, loopback, link-local,
 * unique-local and unspecified addresses, IPv4 and IPv6 alike (IPv4-mapped, NAT64 and 6to4
 * addresses are judged by the IPv4 address they carry; the deprecated IPv4-compatible and
 * translated forms are refused outright), unless the operator allows private targets
 * (ALLOW_PRIVATE_WEBHOOK_TARGETS=true; the local stack does).
 *
 * The host is resolved at delivery time and every address it resolves to must be public, so
 * a name that points inside the network is refused however it is spelt; the POST then connects
 * to those addresses only (transport.ts), so a second answer cannot lead it elsewhere.
 */
import { lookup, Resolver } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { config } from '../config.ts';

/** Errors that mean "no address of this type", not "could not ask". */
const NO_ADDRESS = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * Every address of a host: from the DNS servers WEBHOOK_DNS_SERVERS names (A and AAAA), or,
 * when it is unset, from the system's resolver (which also reads the hosts file).
 */
export async function resolveHost(host: string): Promise<{ address: string }[]> {
  const servers = config.webhookDnsServers;
  if (servers.length === 0) return lookup(host, { all: true, verbatim: true });
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers(servers);
  const families = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const failure = families.find(
    (family): family is PromiseRejectedResult =>
      family.status === 'rejected' && !NO_ADDRESS.has((family.reason as { code?: string }).code ?? ''),
  );
  if (failure) throw failure.reason;
  const addresses = families.flatMap((family) => (family.status === 'fulfilled' ? family.value : []));
  // No address of either type: the first refusal tells why (no such name, or no address).
  const refusal = families.find((family): family is PromiseRejectedResult => family.status === 'rejected');
  if (addresses.length === 0 && refusal) throw refusal.reason;
  return addresses.map((address) => ({ address }));
}

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
  // IPv4 spelt inside IPv6 in the deprecated or translated forms: never a public target.
  { network: '::', prefix: 96, family: 'ipv6', why: 'IPv4-compatible (deprecated)' },
  { network: '::ffff:0:0:0', prefix: 96, family: 'ipv6', why: 'IPv4-translated' },
  { network: '64:ff9b:1::', prefix: 48, family: 'ipv6', why: 'local-use NAT64' },
  { network: '100::', prefix: 64, family: 'ipv6', why: 'discard-only' },
  { network: '2001:db8::', prefix: 32, family: 'ipv6', why: 'documentation' },
];

// BlockList matches an IPv4-mapped IPv6 address (::ffff:a.b.c.d) against the IPv4 rules.
const refused = new BlockList();
for (const range of REFUSED_RANGES) refused.addSubnet(range.network, range.prefix, range.family);

/** NAT64's well-known prefix carries an IPv4 address in its last 32 bits, 6to4 in bits 16–48. */
const NAT64 = new BlockList();
NAT64.addSubnet('64:ff9b::', 96, 'ipv6');
const SIX_TO_FOUR = new BlockList();
SIX_TO_FOUR.addSubnet('2002::', 16, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail becomes the last two). */
function groupsOf(address: string): number[] {
  let text = address;
  const [dotted] = /\d+\.\d+\.\d+\.\d+$/.exec(text) ?? [];
  if (dotted !== undefined) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, text.length - dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return [...front, ...Array(8 - front.length - back.length).fill(0), ...back];
}

/** The IPv4 address an IPv6 address carries in its groups `at` and `at + 1`. */
function ipv4In(groups: readonly number[], at: number): string {
  const [high, low] = groups.slice(at, at + 2);
  if (high === undefined || low === undefined) throw new Error(`An IPv6 address has no groups ${at} and ${at + 1}`);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IP address (v4 or v6 text) is one a webhook must not reach. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return refused.check(address, 'ipv4');
  if (refused.check(address, 'ipv6')) return true;
  const groups = groupsOf(address);
  if (NAT64.check(address, 'ipv6')) return refused.check(ipv4In(groups, 6), 'ipv4');
  if (SIX_TO_FOUR.check(address, 'ipv6')) return refused.check(ipv4In(groups, 1), 'ipv4');
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

/** Allowed with the addresses checked (the only ones the POST may connect to), or refused with why. */
export type TargetCheck = { allowed: true; addresses: string[] } | { allowed: false; reason: string };

/**
 * Resolves the URL's host (every address; an IP literal is its own address) and refuses it when
 * any address is not public. With private targets allowed the addresses are not judged, but the
 * host is still resolved here, once, for the POST to connect to.
 */
export async function checkTarget(
  url: URL,
  allowPrivate: boolean,
  resolve: (host: string) => Promise<{ address: string }[]> = resolveHost,
): Promise<TargetCheck> {
  const host = hostOf(url);
  if (!allowPrivate && LOCAL_NAMES.test(host)) return { allowed: false, reason: `Refused: ${host} is this machine` };
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await resolve(host)).map((entry) => entry.address);
  } catch (error) {
    return { allowed: false, reason: `Could not resolve ${host}: ${(error as Error).message}` };
  }
  if (addresses.length === 0) return { allowed: false, reason: `Could not resolve ${host}` };
  const bad = allowPrivate ? undefined : addresses.find(isRefusedAddress);
  if (bad) return { allowed: false, reason: `Refused: ${host} resolves to ${bad}, a private, loopback or link-local address` };
  return { allowed: true, addresses };
}
