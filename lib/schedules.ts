import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule as RuleSchedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Schedule } from '../shared/routes.ts';
import { grantAccess } from './access.ts';
import { constructIdOf } from './construct-id.ts';
import { type ServiceContext, ServiceFunction } from './service-function.ts';

export interface SchedulesProps {
  schedules: readonly Schedule[];
  context: ServiceContext;
}

/**
 * One function per schedule of the route table, run by an EventBridge rule at the schedule's
 * rate, as the local stack's timer runs it (shared/local/scheduler.ts). A failed run is not
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
      // As for the queue workers (lib/workers.ts): a role that writes to this log group only.
      const logGroup = new LogGroup(this, `${scheduleId}Logs`, { retention: RetentionDays.ONE_MONTH });
      const role = new Role(this, `${scheduleId}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `The ${schedule.operation} scheduled function`,
      });
      logGroup.grantWrite(role);
      grantAccess(this, role, schedule.access, props.context.resources);

      const fn = new ServiceFunction(this, scheduleId, {
        ...props.context,
        operation: schedule.operation,
        handlerModule: schedule.handler,
        access: schedule.access,
        timeout: Duration.seconds(schedule.timeoutSeconds),
        role,
        logGroup,
      });
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
