import { CfnFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import type { OperatorSettings } from './settings.ts';

/**
 * Reserves concurrency for the operations `reservedConcurrency` names: at most that many of the
 * function's instances run at once, which caps the table requests one route can make (and the
 * cost of a flood the stage's throttle lets through), and guarantees the route that much of the
 * account's pool. Reserved concurrency is taken from the pool every function of the account and
 * region shares, so none is reserved unless asked for (docs/operations.md, "Throttling and concurrency").
 *
 * `functions` holds every function of the service by operation, so a misspelt name stops the synth.
 */
export function applyConcurrency(
  functions: Readonly<Record<string, IFunction>>,
  settings: Pick<OperatorSettings, 'reservedConcurrency'>,
): void {
  for (const [operation, reserved] of Object.entries(settings.reservedConcurrency ?? {})) {
    if (!Object.hasOwn(functions, operation)) {
      throw new Error(`reservedConcurrency names ${operation}, which is no operation of the service`);
    }
    const resource = functions[operation].node.defaultChild;
    if (!(resource instanceof CfnFunction)) {
      throw new Error(`The function of ${operation} is not defined in this app, so its concurrency cannot be reserved here`);
    }
    resource.reservedConcurrentExecutions = reserved;
  }
}
