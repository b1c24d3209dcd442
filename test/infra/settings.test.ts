import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { defaultMailFrom, readOperatorSettings } from '../../lib/settings.ts';

const settingsFrom = (context: Record<string, unknown>) => readOperatorSettings(new App({ context }).node);

describe('operator settings', () => {
  it('default to the example sender, no private webhook targets, the API’s own URL, the stage’s throttle, no alarm mail and no reserved concurrency', () => {
    expect(settingsFrom({})).toEqual({
      mailFrom: defaultMailFrom,
      allowPrivateWebhookTargets: false,
      webhookRetryDelays: undefined,
      publicUrl: undefined,
      rateLimitPerAddress: undefined,
      throttleRate: undefined,
      throttleBurst: undefined,
      alarmEmail: undefined,
      reservedConcurrency: undefined,
      tracing: true,
    });
  });

  it('accept the strings `-c key=value` passes', () => {
    expect(
      settingsFrom({
        mailFrom: 'licensing@vendor.example',
        allowPrivateWebhookTargets: 'true',
        webhookRetryDelays: ' 30, 120 ,600',
        publicUrl: 'https://api.vendor.example/',
        rateLimitPerAddress: ' 120',
        throttleRate: '40 ',
        throttleBurst: '80',
        alarmEmail: 'ops@vendor.example, oncall@vendor.example',
        reservedConcurrency: 'licenses.validateKey=100, tokens.generate = 10',
      }),
    ).toEqual({
      mailFrom: 'licensing@vendor.example',
      allowPrivateWebhookTargets: true,
      webhookRetryDelays: '30,120,600',
      publicUrl: 'https://api.vendor.example',
      rateLimitPerAddress: 120,
      throttleRate: 40,
      throttleBurst: 80,
      alarmEmail: ['ops@vendor.example', 'oncall@vendor.example'],
      reservedConcurrency: { 'licenses.validateKey': 100, 'tokens.generate': 10 },
      tracing: true,
    });
  });

  it('accept the booleans and arrays cdk.json can hold', () => {
    expect(settingsFrom({ allowPrivateWebhookTargets: true, webhookRetryDelays: [60, 300] })).toMatchObject({
      allowPrivateWebhookTargets: true,
      webhookRetryDelays: '60,300',
    });
    expect(settingsFrom({ allowPrivateWebhookTargets: 'false' }).allowPrivateWebhookTargets).toBe(false);
    expect(settingsFrom({ rateLimitPerAddress: 30 }).rateLimitPerAddress).toBe(30);
    expect(
      settingsFrom({
        throttleRate: 250,
        throttleBurst: 500,
        alarmEmail: ['ops@vendor.example', 'ops@vendor.example'],
        reservedConcurrency: { 'licenses.validate': 50 },
      }),
    ).toMatchObject({
      throttleRate: 250,
      throttleBurst: 500,
      alarmEmail: ['ops@vendor.example'],
      reservedConcurrency: { 'licenses.validate': 50 },
    });
  });

  it.each([
    [{ mailFrom: 'Licensing <no-reply@vendor.example>' }, /mailFrom/],
    [{ mailFrom: 'vendor.example' }, /mailFrom/],
    [{ allowPrivateWebhookTargets: 'yes' }, /allowPrivateWebhookTargets/],
    [{ webhookRetryDelays: '60,five' }, /webhookRetryDelays/],
    [{ webhookRetryDelays: '-1' }, /webhookRetryDelays/],
    [{ publicUrl: 'api.vendor.example' }, /publicUrl/],
    [{ publicUrl: 'ftp://api.vendor.example' }, /publicUrl/],
    [{ rateLimitPerAddress: '0' }, /rateLimitPerAddress/],
    [{ rateLimitPerAddress: 'sixty' }, /rateLimitPerAddress/],
    [{ throttleRate: '0' }, /throttleRate/],
    [{ throttleRate: 'fast' }, /throttleRate/],
    [{ throttleBurst: '-1' }, /throttleBurst/],
    [{ throttleBurst: 1.5 }, /throttleBurst/],
    [{ alarmEmail: 'Ops <ops@vendor.example>' }, /alarmEmail/],
    [{ alarmEmail: 'ops@vendor.example,' }, /alarmEmail/],
    [{ alarmEmail: ['ops@vendor.example', 42] }, /alarmEmail/],
    [{ reservedConcurrency: 'licenses.validateKey' }, /reservedConcurrency/],
    [{ reservedConcurrency: 'licenses.validateKey=0' }, /reservedConcurrency/],
    [{ reservedConcurrency: 'licenses.validateKey=1=2' }, /reservedConcurrency/],
    [{ reservedConcurrency: { 'licenses.validate': 'many' } }, /reservedConcurrency/],
    [{ reservedConcurrency: ['licenses.validate=5'] }, /reservedConcurrency/],
  ])('stop the synth on %o', (context, message) => {
    expect(() => settingsFrom(context)).toThrow(message);
  });

  describe('tracing', () => {
    it('is on unless set to false, as cdk.json or `-c tracing=false` gives it', () => {
      expect(settingsFrom({}).tracing).toBe(true);
      expect(settingsFrom({ tracing: 'true' }).tracing).toBe(true);
      expect(settingsFrom({ tracing: false }).tracing).toBe(false);
      expect(settingsFrom({ tracing: 'false' }).tracing).toBe(false);
    });

    it.each(['off', '0', 1])('stops the synth on %o', (tracing) => {
      expect(() => settingsFrom({ tracing })).toThrow(/tracing must be true or false/);
    });
  });
});
