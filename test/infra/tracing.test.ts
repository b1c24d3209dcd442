/**
 * The `tracing` setting (docs/operations.md, "Tracing"): on by default, every function, the API's,
 * the workers' and the schedules', traces actively, is told so, and may write to X-Ray; off, none
 * does, none is told to, and no role may write traces.
 */
import { Validations } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import type { ServiceFunction } from '../../lib/service-function.ts';
import { fallback, routes, schedules, workers } from '../../shared/routes.ts';
import { environmentOf, functionFor, propertiesOf, type Synthesis, statementsOf, synthesize } from './synthesize.ts';

const TRACE_WRITES = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

const on = synthesize();
const off = synthesize({ settings: { tracing: false } });

/** Every function of the stack: the routes', the fallback's, the workers' and the schedules'. */
const functionsOf = ({ stack }: Synthesis) =>
  [...routes, fallback, ...workers, ...schedules].map((entry) => functionFor(stack, entry.operation));

const tracingConfigOf = (synthesis: Synthesis, fn: ServiceFunction) => propertiesOf(synthesis, fn).TracingConfig;

/** The acknowledgements of a wildcard resource on a function's role (cdk-nag reads them: test/infra/nag.test.ts). */
const wildcardAcknowledgementsOn = (fn: ServiceFunction) =>
  (fn.role?.node.metadata ?? [])
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.keys(entry.data as Record<string, string>))
    .filter((id) => id.endsWith('AwsSolutions-IAM5[Resource::*]'));

const traceWritesOf = (synthesis: Synthesis, fn: ServiceFunction) =>
  statementsOf(synthesis, fn).filter((statement) => statement.Action.some((action) => action.startsWith('xray:')));

describe('tracing', () => {
  it('is on by default: every function traces actively and is told so', () => {
    const functions = functionsOf(on);
    expect(functions).toHaveLength(routes.length + 1 + workers.length + schedules.length);
    for (const fn of functions) {
      expect(tracingConfigOf(on, fn), fn.node.path).toEqual({ Mode: 'Active' });
      expect(environmentOf(on, fn).POWERTOOLS_TRACE_ENABLED, fn.node.path).toBe('true');
    }
  });

  it('lets every function write its traces, in one statement per role', () => {
    for (const fn of functionsOf(on)) {
      expect(traceWritesOf(on, fn), fn.node.path).toEqual([{ Effect: 'Allow', Action: TRACE_WRITES, Resource: '*' }]);
      // The wildcard is X-Ray's own, acknowledged once on each role.
      expect(wildcardAcknowledgementsOn(fn), fn.node.path).toHaveLength(1);
    }
  });

  it('turned off, leaves every function untraced, told so, and without the permission', () => {
    for (const fn of functionsOf(off)) {
      expect(tracingConfigOf(off, fn), fn.node.path).toBeUndefined();
      expect(environmentOf(off, fn).POWERTOOLS_TRACE_ENABLED, fn.node.path).toBe('false');
      expect(traceWritesOf(off, fn), fn.node.path).toEqual([]);
      expect(wildcardAcknowledgementsOn(fn), fn.node.path).toEqual([]);
    }
  });
});
