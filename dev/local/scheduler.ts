/**
 * Runs the route table's schedules (shared/routes.ts) in the local stack, as the stack's
 * EventBridge rules run them on AWS: each schedule's handler module, called with a scheduled
 * event, every `intervalSeconds`. One run of a schedule at a time: a tick that finds the previous
 * run still going is skipped (on AWS runs may overlap, harmlessly; here a test sees one at a
 * time). A failed run is logged and the next tick runs as usual. Stopping clears the timers and
 * waits for the runs in progress.
 */

import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';
import type { HandlerSource } from '#shared/routes.ts';
import { createHandlerLoader } from './handler-modules.ts';
import { lambdaContext } from './lambda-context.ts';
import type { PollerActivity } from './poller.ts';

export interface ScheduledRun {
  operation: string;
  handler: HandlerSource;
  /** Seconds between runs; 0 runs it never. */
  intervalSeconds: number;
  /** Seconds a run may take: what its context's getRemainingTimeInMillis counts down from. */
  timeoutSeconds: number;
}

export interface SchedulerOptions {
  schedules: readonly ScheduledRun[];
  /** Repository root: handler paths are relative to it. */
  root: string;
  region: string;
  log?: (message: string, error?: unknown) => void;
}

export interface Scheduler {
  /** Runs in progress, and runs started since the scheduler began (what the idle check reads, as the poller's). */
  activity(): PollerActivity;
  stop(): Promise<void>;
}

/** The event EventBridge gives a function its rule invokes. */
function scheduledEvent(operation: string, region: string): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: new Date().toISOString(),
    region,
    resources: [`arn:aws:events:${region}:123456789012:rule/${operation}`],
    detail: {},
  };
}

export function startScheduler(options: SchedulerOptions): Scheduler {
  const handlerFor = createHandlerLoader(options.root);
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));
  const activity: PollerActivity = { running: 0, started: 0 };
  const runs = new Set<Promise<void>>();
  const timers: NodeJS.Timeout[] = [];

  async function run(schedule: ScheduledRun): Promise<void> {
    try {
      const handler = await handlerFor(schedule.handler);
      await handler(
        scheduledEvent(schedule.operation, options.region),
        lambdaContext(schedule.operation, schedule.timeoutSeconds, options.region),
      );
    } catch (error) {
      log(`${schedule.operation} failed; it runs again at its next tick`, error);
    }
  }

  for (const schedule of options.schedules) {
    if (!(schedule.intervalSeconds > 0)) continue;
    let current: Promise<void> | undefined;
    const tick = () => {
      if (current) return;
      activity.running += 1;
      activity.started += 1;
      const started = run(schedule).finally(() => {
        activity.running -= 1;
        runs.delete(started);
        current = undefined;
      });
      current = started;
      runs.add(started);
    };
    timers.push(setInterval(tick, schedule.intervalSeconds * 1000));
  }

  return {
    activity: () => ({ ...activity }),
    async stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
      await Promise.all([...runs]);
    },
  };
}
