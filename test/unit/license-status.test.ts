/**
 * A license's derived status (shared/resources/licenses/entity.ts, docs/rules.md §18.4), as Keygen
 * derives it: SUSPENDED, EXPIRED, EXPIRING, INACTIVE (made, validated, checked out and checked in,
 * none within 90 days), ACTIVE.
 */
import { describe, expect, it } from 'vitest';
import { licenseStatus } from '#shared/resources/licenses/entity.ts';

const DAY = 86_400_000;
const at = Date.parse('2026-06-01T00:00:00.000Z');
const ago = (days: number) => new Date(at - days * DAY).toISOString();

describe('license status', () => {
  const old = { suspended: false, expiry: null, created: ago(91) };

  it('is INACTIVE when nothing happened to a license made over 90 days ago within them', () => {
    expect(licenseStatus(old, at)).toBe('INACTIVE');
    expect(licenseStatus({ ...old, lastValidated: ago(91), lastCheckOut: ago(100), lastCheckIn: null }, at)).toBe('INACTIVE');
  });

  it('is ACTIVE when it was made, validated, checked out or checked in within 90 days', () => {
    expect(licenseStatus({ ...old, created: ago(90) }, at)).toBe('ACTIVE');
    expect(licenseStatus({ ...old, lastValidated: ago(1) }, at)).toBe('ACTIVE');
    expect(licenseStatus({ ...old, lastCheckOut: ago(89) }, at)).toBe('ACTIVE');
    expect(licenseStatus({ ...old, lastCheckIn: ago(30) }, at)).toBe('ACTIVE');
  });

  it('puts suspension, expiry and a near expiry before inactivity', () => {
    expect(licenseStatus({ ...old, suspended: true }, at)).toBe('SUSPENDED');
    expect(licenseStatus({ ...old, expiry: ago(1) }, at)).toBe('EXPIRED');
    expect(licenseStatus({ ...old, expiry: ago(-2) }, at)).toBe('EXPIRING');
    expect(licenseStatus({ ...old, expiry: ago(-30) }, at)).toBe('INACTIVE');
  });
});
