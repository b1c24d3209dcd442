import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule as RuleSchedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import type { Schedule } from '../shared/routes.ts';
import { constructIdOf } from './construct-id.ts';
import { type ServiceContext, type ServiceFunction, workerFunction } from './service-function.ts';

export interface SchedulesProps {
  schedules: readonly Schedule[];
  context: ServiceContext;
}

/**
 * One function per schedule of the route table, run by an EventBridge rule at the schedule's
 * rate, as the local stack's timer runs it (dev/local/scheduler.ts). A failed run is not
 * retried, neither by EventBridge nor by Lambda's asynchronous retries: the next run, at most a
 * minute later, looks again at whatever the failed one left (the sweeper's cursor stays put).
 */
export class Schedules extends Construct {
  /** The scheduled functions, by operation. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  /** Their rules, by operation. */
  readonly rules: ReadonlyMap<string, Rule>;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);

    const functions = new Map<string, ServiceFunction>();
    const rules = new Map<string, Rule>();
    for (const schedule of props.schedules) {
      const scheduleId = constructIdOf(schedule.operation);
      const fn = workerFunction(this, schedule, 'scheduled function', schedule.timeoutSeconds, props.context);
      fn.configureAsyncInvoke({ retryAttempts: 0 });
      rules.set(
        schedule.operation,
        new Rule(this, `${scheduleId}Rule`, {
          description: `Runs ${schedule.operation} every ${schedule.everyMinutes === 1 ? 'minute' : `${schedule.everyMinutes} minutes`}`,
          schedule: RuleSchedule.rate(Duration.minutes(schedule.everyMinutes)),
          targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
        }),
      );
      functions.set(schedule.operation, fn);
    }
    this.functions = functions;
    this.rules = rules;
  }
}
