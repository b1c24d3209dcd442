/**
 * The limit per source address as containers count it (shared/store/rate-limit.ts, `Tallies`),
 * against the run's DynamoDB Local: each `Tallies` is one container. One container admits exactly
 * the limit; a client spread over C containers is admitted no more than the documented bound
 * (docs/rules.md §7.3), one under the limit is never refused, and an address far under the limit
 * costs no request.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { onServiceClient } from '#shared/client-hooks.ts';
import { LimitReached } from '#shared/errors.ts';
import { Tallies, tallyBatch } from '#shared/store/rate-limit.ts';

const WINDOW_SECONDS = 3600;
/** One instant for every hit of a case, so none crosses a window's end. */
const NOW = Date.now();

let sent = 0;
onServiceClient((client, service) => {
  if (service !== 'dynamodb') return;
  client.middlewareStack.add(
    (next) => (args) => {
      sent += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
});

type Order = 'in turn' | 'one at once' | 'containers at once';

/**
 * Sends `hits` hits of one new subject, each to a container picked at random, and answers how
 * many were admitted: `in turn`, one after the other; `one at once`, all together to one
 * container (the local stack serves requests together); `containers at once`, each container
 * taking its own hits one after the other, as a Lambda container does, while all run together.
 */
async function admitted(containers: Tallies[], limit: number, hits: number, order: Order = 'in turn'): Promise<number> {
  const subject = `TEST#${randomUUID()}`;
  const hit = async (container: Tallies): Promise<number> => {
    try {
      await container.hit(subject, limit, WINDOW_SECONDS, 'too many', NOW);
      return 1;
    } catch (error) {
      if (error instanceof LimitReached) return 0;
      throw error;
    }
  };
  const queues = containers.map(() => 0);
  for (let i = 0; i < hits; i++) queues[randomInt(containers.length)] += 1;
  const inTurn = async (container: Tallies, count: number) => {
    let sum = 0;
    for (let i = 0; i < count; i++) sum += await hit(container);
    return sum;
  };
  const sum = (counts: number[]) => counts.reduce((total, n) => total + n, 0);
  if (order === 'one at once') return sum(await Promise.all(Array.from({ length: hits }, () => hit(containers[0] as Tallies))));
  if (order === 'containers at once') return sum(await Promise.all(containers.map((container, i) => inTurn(container, queues[i] ?? 0))));
  let total = 0;
  for (let i = 0; i < hits; i++) total += await hit(containers[randomInt(containers.length)] as Tallies);
  return total;
}

const containers = (count: number) => Array.from({ length: count }, () => new Tallies());
const bound = (limit: number, count: number) => limit - 1 + (count + 1) * tallyBatch(limit);

describe('the limit per source address, counted by containers', () => {
  it('admits exactly the limit through one container, in turn or all at once', async () => {
    for (const limit of [1, 3, 60, 250]) {
      expect(await admitted(containers(1), limit, limit * 2), `limit ${limit}`).toBe(limit);
      expect(await admitted(containers(1), limit, limit * 2, 'one at once'), `limit ${limit}, at once`).toBe(limit);
    }
  });

  it('admits a client spread over C containers no more than limit − 1 + (C + 1) × batch, and at least the limit', async () => {
    for (const [limit, count] of [
      [60, 2],
      [60, 5],
      [60, 20],
      [250, 8],
      [3, 4],
    ] as const) {
      for (const order of ['in turn', 'containers at once'] as const) {
        const got = await admitted(containers(count), limit, limit * 4, order);
        expect(got, `limit ${limit}, ${count} containers, ${order}`).toBeLessThanOrEqual(bound(limit, count));
        expect(got, `limit ${limit}, ${count} containers, ${order}`).toBeGreaterThanOrEqual(limit);
      }
    }
  });

  it('admits no more than the bound in the order that comes closest to it', async () => {
    for (const [limit, count] of [
      [60, 5],
      [250, 4],
    ] as const) {
      const subject = `TEST#${randomUUID()}`;
      const batch = tallyBatch(limit);
      const [first, ...others] = containers(count) as [Tallies, ...Tallies[]];
      const admits = async (container: Tallies) => {
        try {
          await container.hit(subject, limit, WINDOW_SECONDS, 'too many', NOW);
          return true;
        } catch (error) {
          if (error instanceof LimitReached) return false;
          throw error;
        }
      };
      let got = 0;
      // Every container but the first holds a batch less one, unshared, unseen by the others.
      for (const container of others) for (let i = 0; i < batch - 1; i++) if (await admits(container)) got += 1;
      // The first takes the shared total to the limit knowing nothing of theirs; then each of the others until it refuses.
      for (const container of [first, ...others]) while (await admits(container)) got += 1;
      expect(got, `limit ${limit}, ${count} containers`).toBeLessThanOrEqual(bound(limit, count));
      expect(got, `limit ${limit}, ${count} containers`).toBeGreaterThanOrEqual(limit + (count - 1) * (batch - 1));
    }
  });

  it('never refuses a client under the limit, however its hits are spread', async () => {
    for (const [limit, count] of [
      [60, 1],
      [60, 7],
      [250, 3],
    ] as const) {
      for (const order of ['in turn', 'containers at once'] as const) {
        for (let run = 0; run < 3; run++) expect(await admitted(containers(count), limit, limit, order)).toBe(limit);
      }
    }
  });

  it('costs no request until a container has counted a batch', async () => {
    const container = new Tallies();
    const limit = 60;
    const before = sent;
    const subject = `TEST#${randomUUID()}`;
    for (let i = 0; i < tallyBatch(limit) - 1; i++) await container.hit(subject, limit, WINDOW_SECONDS, 'too many', NOW);
    expect(sent - before).toBe(0);
    await container.hit(subject, limit, WINDOW_SECONDS, 'too many', NOW);
    expect(sent - before).toBe(1);
  });
});
