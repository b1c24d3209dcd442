/**
 * A seeded slice of the fuzz suite (test/fuzz/, `npm run fuzz` for the full runs): 500 requests
 * over every route of the route table and every bearer kind, valid ones built from the API's
 * description and mutated ones, against the stack the test run started. No answer may be a 5xx,
 * be anything but a JSON:API document (unless documented otherwise), break the description or
 * take over 5 s; afterwards every list the admin reaches must count what its pages hold, and every
 * link of a record seen must resolve. The seed is fixed: `npm run fuzz -- --seed 20260611
 * --requests 500` sends the same requests (over fixtures with more records), and a failure's
 * `--only <index>` sends one of them alone.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROUTES } from '../fuzz/description.ts';
import { fuzz } from '../fuzz/engine.ts';
import { causesFromLog, formatReport } from '../fuzz/report.ts';
import { buildWorld, type World } from '../fuzz/world.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { stack } from '../support/stack.ts';

const SEED = 20260611;
const REQUESTS = 500;

let receiver: Receiver;
let world: World;

beforeAll(async () => {
  receiver = await startReceiver();
  world = await buildWorld(stack().api, receiver.url, 1);
});

afterAll(() => receiver.close());

/** The errors the stack logged, for the report's causes of a 5xx (the stack's log file, as local-stack-setup.ts names it). */
function stackLog(): string {
  try {
    return readFileSync(resolve(process.cwd(), process.env.LOCAL_STACK_LOG || '.data/test-stack.log'), 'utf8');
  } catch {
    return '';
  }
}

it(`${REQUESTS} seeded requests over every route and bearer kind: answers, list counts and links as the API promises`, async () => {
  const report = await fuzz({
    world,
    seed: SEED,
    requests: REQUESTS,
    concurrency: 4,
    linkBudget: 150,
    listPathsPerScope: 1,
    idleSeconds: 10,
  });
  expect(report.requests).toBe(REQUESTS);
  expect(report.operations).toBe(ROUTES.length);
  expect(report.failures, formatReport(report, causesFromLog(stackLog()), ROUTES.length)).toEqual([]);
});
