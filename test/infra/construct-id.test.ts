import { describe, expect, it } from 'vitest';
import { constructIdOf } from '../../lib/construct-id.ts';

describe('construct ids', () => {
  it.each([
    ['users.create', 'UsersCreate'],
    ['notFound', 'NotFound'],
    ['webhookEndpoints.test', 'WebhookEndpointsTest'],
    ['webhooks', 'Webhooks'],
    ['purge-environment', 'PurgeEnvironment'],
  ])('%s → %s', (name, id) => {
    expect(constructIdOf(name)).toBe(id);
  });
});
