/** A webhook event's resource object in the description, as webhookEventDocument (document.ts) shows it. */
import * as z from 'zod/mini';
import { eventKinds } from '../../events/kinds.ts';
import {
  account,
  environment,
  every,
  Id,
  identifier,
  linked,
  named,
  type SchemasOf,
  SelfLinks,
  Timestamp,
} from '../../reference/objects.ts';
import type { WebhookEventStatus } from './entity.ts';

/** A webhook event's endpoint: named for good, linked while it exists (a link to a removed endpoint would answer 404). */
const EventEndpoint = named(
  'WebhookEventEndpoint',
  z
    .union([linked('webhook-endpoints'), z.strictObject({ data: identifier('webhook-endpoints') })])
    .check(z.describe('The endpoint the event was for, always by identifier; `links.related` only while the endpoint exists')),
);

export const schemas: SchemasOf<'webhook-events'> = {
  'webhook-events': {
    name: 'WebhookEvent',
    schema: z
      .strictObject({
        id: Id,
        type: z.literal('webhook-events'),
        meta: z.strictObject({ idempotencyToken: z.string().check(z.describe('64 hex characters, the same across retries')) }),
        attributes: z.strictObject({
          endpoint: z.string(),
          payload: z.string().check(z.describe('The `{data, meta?}` document of the change, serialised')),
          event: z.enum(eventKinds() as [string, ...string[]]),
          status: every<WebhookEventStatus>()(['DELIVERING', 'DELIVERED', 'FAILING', 'FAILED']),
          lastResponseCode: z.nullable(z.int()),
          lastResponseBody: z.nullable(z.string()),
          created: Timestamp,
          updated: Timestamp,
        }),
        relationships: z.strictObject({ account, environment, endpoint: EventEndpoint }),
        links: SelfLinks,
      })
      .check(
        z.describe(
          'One delivery of one change to one endpoint (docs/rules.md §26.3). It outlives its endpoint: `relationships.endpoint.data` always names the endpoint it was for, `links.related` only while that endpoint exists.',
        ),
      ),
  },
};
