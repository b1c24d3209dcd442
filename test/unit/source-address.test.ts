import { describe, expect, it } from 'vitest';
import { clientOf } from '#shared/http/source-address.ts';

describe('clientOf', () => {
  it('counts an IPv4 address as itself, mapped into IPv6 or not', () => {
    expect(clientOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientOf('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address by its /64, however it is spelt', () => {
    const prefix = '2001:db8:85a3:42::/64';
    for (const address of [
      '2001:db8:85a3:42::1',
      '2001:0db8:85a3:0042:0000:0000:0000:0002',
      '2001:db8:85a3:42:ffff:ffff:ffff:ffff',
      '2001:DB8:85A3:42:1:2:3.4.5.6',
      '2001:db8:85a3:42::3.4.5.6',
    ]) {
      expect(clientOf(address), address).toBe(prefix);
    }
    expect(clientOf('2001:db8:85a3:43::1')).not.toBe(prefix);
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    expect(clientOf('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('leaves anything else as it is', () => {
    expect(clientOf('not an address')).toBe('not an address');
  });
});
