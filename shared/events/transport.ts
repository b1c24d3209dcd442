/**
 * How a webhook POST reaches its endpoint (DECISIONS §9): the host is resolved once, every
 * address is judged (targets.ts), and the connection goes to those addresses and no others.
 * Letting the HTTP client resolve the name again would let a name that answers a public address
 * to the check and a private one to the connection (DNS rebinding) reach inside the network.
 *
 * Only the connection's address is pinned: the URL is unchanged, so the Host header is the URL's
 * host[:port] and, over https, the server name sent (SNI) and the name the certificate is
 * verified against are the host name.
 */
import { lookup, Resolver } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';
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
    (family): family is PromiseRejectedResult => family.status === 'rejected' && !NO_ADDRESS.has((family.reason as { code?: string }).code ?? ''),
  );
  if (failure) throw failure.reason;
  const addresses = families.flatMap((family) => (family.status === 'fulfilled' ? family.value : []));
  // No address of either type: the first refusal tells why (no such name, or no address).
  const refusal = families.find((family): family is PromiseRejectedResult => family.status === 'rejected');
  if (addresses.length === 0 && refusal) throw refusal.reason;
  return addresses.map((address) => ({ address }));
}

/**
 * A dispatcher that connects to `addresses` (checked IP addresses) whatever the URL's host name,
 * trying them in turn as Node does with a name's addresses. An IP-literal host is connected to
 * as it is: Node asks no lookup for it.
 *
 * One per delivery, destroyed once the answer is read: a connection kept alive would carry these
 * addresses into a later delivery to the same host, whose own lookup and check may answer
 * differently, and a fresh connection per POST costs little next to a webhook's rate.
 */
export function pinnedAgent(addresses: readonly string[]): Agent {
  const pinned = addresses.map((address) => ({ address, family: isIP(address) }));
  const pinnedLookup: LookupFunction = (hostname, options, callback) => {
    const usable = pinned.filter((entry) => !options.family || entry.family === options.family);
    if (usable.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`No checked address of ${hostname} for IPv${options.family}`);
      error.code = 'ENOTFOUND';
      return callback(error, '', 0);
    }
    if (options.all) return callback(null, usable);
    callback(null, usable[0]!.address, usable[0]!.family);
  };
  return new Agent({ connect: { lookup: pinnedLookup } });
}
