/**
 * Who a source address stands for, for counting requests per client: an IPv4 address itself;
 * an IPv6 address by its /64, the prefix one subscriber is given, so that rotating through the
 * addresses of one's own prefix does not reset the count. An IPv4-mapped IPv6 address counts as
 * the IPv4 address it carries.
 */
import { isIPv4, isIPv6 } from 'node:net';

export function clientOf(address: string): string {
  const [, mapped] = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address) ?? [];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (!isIPv6(address)) return address;
  const groupsIn = (part: string) => (part === '' ? [] : part.split(':'));
  const [head = '', tail] = address.split('::');
  const first = groupsIn(head);
  // A dotted IPv4 tail stands for the last two groups; only the first four matter here.
  const last = tail === undefined ? [] : groupsIn(tail);
  const lastCount = last.length + (last.at(-1)?.includes('.') ? 1 : 0);
  const groups = tail === undefined ? first : [...first, ...Array<string>(8 - first.length - lastCount).fill('0'), ...last];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
