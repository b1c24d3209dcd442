/**
 * DNS rebinding over HTTP (docs/rules.md §7.4): an endpoint whose host name answers 127.0.0.2 to the
 * delivery's check and 127.0.0.1 to any later question. The test run's stack resolves webhook
 * hosts with its own DNS responder (local-stack-setup.ts), and a name made unique to the test
 * means the first question for it is the delivery's own. The POST must reach the checked address
 * only: a client that resolved the name again at connect time would reach 127.0.0.1 instead.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { call, newAccount, userBody } from '../support/client.ts';
import { rebindingName } from '../support/dns-responder.ts';
import { until } from '../support/patience.ts';
import { type Receiver, startReceiver, verify } from '../support/receiver.ts';

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

/** A receiver on 127.0.0.2 (`checked`) and one on 127.0.0.1 (`other`) on the same port. */
async function twoReceivers() {
  for (;;) {
    const checked = await startReceiver('/hooks', { address: '127.0.0.2' });
    receivers.push(checked);
    const port = Number(new URL(checked.url).port);
    try {
      const other = await startReceiver('/hooks', { address: '127.0.0.1', port });
      receivers.push(other);
      checked.answer = () => ({ status: 200, body: 'checked' });
      other.answer = () => ({ status: 200, body: 'other' });
      return { checked, other, port };
    } catch {
      // That port is taken on 127.0.0.1: another pair.
    }
  }
}

describe('a host name that answers differently to a second question', () => {
  it('the signed POST reaches the address the delivery checked, and that answer is recorded', async () => {
    const account = await newAccount();
    const admin = (method: string, path: string, body?: unknown) =>
      call(method, `${account.path}${path}`, { token: account.adminToken, body });
    const { checked, other, port } = await twoReceivers();
    const host = rebindingName('127.0.0.2', '127.0.0.1', randomUUID());
    const endpoint = await admin('POST', '/webhook-endpoints', {
      data: { type: 'webhook-endpoints', attributes: { url: `http://${host}:${port}/hooks`, subscriptions: ['user.created'] } },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);

    const user = await admin(
      'POST',
      '/users',
      userBody({ email: `${randomUUID().slice(0, 8)}@users.example`, password: 'a long password' }),
    );
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    const events = await admin('GET', '/webhook-events?events[]=user.created');
    expect(events.body.data).toHaveLength(1);
    const eventId = events.body.data[0].id as string;

    const event = await until(
      async () => {
        const { data } = (await admin('GET', `/webhook-events/${eventId}`)).body;
        return data.attributes.status === 'DELIVERED' && data;
      },
      () => `event ${eventId} to be delivered`,
    );
    expect(event.attributes).toMatchObject({ status: 'DELIVERED', lastResponseCode: 200, lastResponseBody: 'checked' });

    expect(other.deliveries).toEqual([]);
    expect(checked.deliveries).toHaveLength(1);
    const [delivery] = checked.deliveries;
    expect(delivery!.headers.host).toBe(`${host}:${port}`);
    expect(verify(endpoint.body.data.attributes.signingSecret, delivery!)).toMatchObject({
      data: { id: eventId, attributes: { event: 'user.created' } },
    });
  });
});
