/** A webhook endpoint's resource object in the description, as webhookEndpointDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { account, environment, resource, type SchemasOf } from '../../reference/objects.ts';

export const schemas: SchemasOf<'webhook-endpoints'> = {
  'webhook-endpoints': resource(
    'WebhookEndpoint',
    'webhook-endpoints',
    {
      url: z.string(),
      subscriptions: z.array(z.string()),
      enabled: z.boolean(),
      signingSecret: z.optional(z.string().check(z.describe('`whsec_<base64>`: only in the answer that creates the endpoint'))),
    },
    { account, environment },
  ),
};
