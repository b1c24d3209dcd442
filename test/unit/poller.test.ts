/**
 * The local poller's bookkeeping of one worker's receives and batches in flight (no queue):
 * one receive out at a time unless the queue has a backlog, and how long it may wait so that it
 * ends before any batch in flight could become visible again, on a clock the test moves.
 */
import type { Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { InFlight } from '#dev/local/poller.ts';

const received = (id: string, count: number, firstReceivedAt: number): Message => ({
  MessageId: id,
  Attributes: { ApproximateReceiveCount: String(count), ApproximateFirstReceiveTimestamp: String(firstReceivedAt) },
});

describe('receives and batches in flight', () => {
  it('lets a receive wait as long as it likes while nothing is in flight, and only one be out at a time', () => {
    const inFlight = new InFlight(2000, () => 0);
    expect(inFlight.allowedWait(2)).toBe(2);
    const batch = inFlight.begin(0);
    expect(inFlight.allowedWait(2)).toBeUndefined();
    // Nothing came: the next receive may wait as long again.
    inFlight.received(batch, [], 0);
    expect(inFlight.allowedWait(2)).toBe(2);
  });

  it('once a receive comes back full, lets receives go out side by side without waiting, until one comes back short', () => {
    let now = 0;
    const inFlight = new InFlight(10_000, () => now);
    const first = inFlight.begin(now);
    inFlight.received(first, [received('a', 1, now)], now, true);
    const second = inFlight.begin(now);
    expect(inFlight.allowedWait(2)).toBe(0);
    const third = inFlight.begin(now);
    expect(inFlight.allowedWait(2)).toBe(0);
    inFlight.received(second, [received('b', 1, now)], now, true);
    inFlight.received(third, [], now, false);
    // Short: back to one long poll at a time.
    now += 100;
    expect(inFlight.allowedWait(2)).toBe(2);
    inFlight.begin(now);
    expect(inFlight.allowedWait(2)).toBeUndefined();
  });

  it('shortens the wait as a batch ages, and allows no receive once its messages could be visible within one', () => {
    let now = 10_000;
    const inFlight = new InFlight(2000, () => now);
    const batch = inFlight.begin(now);
    const message = received('a', 1, now);
    inFlight.received(batch, [message], now);
    expect(inFlight.allowedWait(20)).toBe(1);
    now += 600;
    expect(inFlight.allowedWait(20)).toBe(0);
    now += 1000;
    expect(inFlight.allowedWait(20)).toBeUndefined();
    inFlight.end(batch, [message]);
    expect(inFlight.allowedWait(20)).toBe(20);
  });

  it('counts from when a first receive hid its messages, and from the request for messages received before', () => {
    let now = 10_000;
    const inFlight = new InFlight(2000, () => now);
    // The long poll waited 1.9 s for its message; it was hidden then.
    const first = inFlight.begin(now);
    now += 1900;
    inFlight.received(first, [received('a', 1, 11_900)], 10_000);
    expect(inFlight.allowedWait(20)).toBe(1);
    // A message received once already was hidden at the request, at the earliest.
    const second = inFlight.begin(now);
    inFlight.received(second, [received('b', 3, 1_000)], 10_000);
    expect(inFlight.allowedWait(20)).toBeUndefined();
  });

  it('knows the messages in flight, and tells waiting slots when a receive is back or a batch ends', async () => {
    const inFlight = new InFlight(2000, () => 0);
    const batch = inFlight.begin(0);
    const message = received('a', 1, 0);
    const back = inFlight.next();
    inFlight.received(batch, [message], 0);
    await back;
    expect(inFlight.holds(message)).toBe(true);
    expect(inFlight.holds(received('b', 1, 0))).toBe(false);
    const ended = inFlight.next();
    inFlight.end(batch, [message]);
    await ended;
    expect(inFlight.holds(message)).toBe(false);
  });
});
