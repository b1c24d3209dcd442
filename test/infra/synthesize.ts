/**
 * Synthesises the stack the way `cdk synth` does (same cdk.json context, so the same feature
 * flags), minus bundling, over stub handler modules: the infrastructure tests depend on the
 * route table, not on the handlers being written.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { constructIdOf } from '../../lib/construct-id.ts';
import { LicensingStack, type LicensingStackProps } from '../../lib/licensing-stack.ts';
import type { ServiceFunction } from '../../lib/service-function.ts';
import type { OperatorSettings } from '../../lib/settings.ts';
import { fallback, routes, workers } from '../../shared/routes.ts';

/** The context `cdk synth` runs with, feature flags included. */
export const cdkContext = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }
).context;

export const env = { account: '123456789012', region: 'eu-west-1' };

export const baseSettings: OperatorSettings = { mailFrom: 'no-reply@licensing.example', allowPrivateWebhookTargets: false, tracing: true };

export interface SynthesisOptions extends Partial<Omit<LicensingStackProps, 'settings'>> {
  settings?: Partial<OperatorSettings>;
  /** Runs CloudFormation's template validation, as `cdk synth` does; it costs seconds, so one synthesis is enough. */
  validate?: boolean;
}

export interface Synthesis {
  stack: LicensingStack;
  template: Template;
}

export function synthesize({ validate = false, ...options }: SynthesisOptions = {}): Synthesis {
  const settings = { ...baseSettings, ...options.settings };
  const app = new App({
    // The functions read `tracing` from the context (lib/service-function.ts), as `cdk synth` gives it.
    context: { ...cdkContext, 'aws:cdk:bundling-stacks': [], tracing: settings.tracing },
    builtinCloudFormationValidation: validate,
  });
  const stack = new LicensingStack(app, 'LicensingService', {
    env,
    codeRoot: stubCodeRoot([
      ...[...routes, ...(options.routes ?? [])].map((route) => route.handler),
      ...[...workers, ...(options.workers ?? [])].map((worker) => worker.handler),
      fallback.handler,
    ]),
    ...options,
    settings,
  });
  return { stack, template: Template.fromStack(stack) };
}

/** A directory holding an empty module at each handler path, and the lock file NodejsFunction requires. */
function stubCodeRoot(handlers: readonly string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'licensing-handlers-'));
  for (const handler of handlers) {
    mkdirSync(path.dirname(path.join(root, handler)), { recursive: true });
    writeFileSync(path.join(root, handler), 'export const handler = async () => {};\n');
  }
  writeFileSync(path.join(root, 'package-lock.json'), '{}\n');
  return root;
}

/** The function built for an operation; `Api` holds the routes' functions, `Workers` the consumers'. */
export function functionFor(stack: LicensingStack, home: 'Api' | 'Workers', operation: string): ServiceFunction {
  return stack.node.findChild(home).node.findChild(constructIdOf(operation)) as ServiceFunction;
}

export function logicalIdOf(stack: LicensingStack, construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

export interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown;
}

/** Every statement of the inline policies attached to a function's role. */
export function statementsOf({ stack, template }: Synthesis, fn: ServiceFunction): Statement[] {
  const roleId = logicalIdOf(stack, fn.role!);
  const policies = template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } });
  return Object.values(policies)
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Array<Statement & { Action: string | string[] }>)
    .map((statement) => ({ ...statement, Action: [statement.Action].flat() }));
}

export function actionsOf(synthesis: Synthesis, fn: ServiceFunction): string[] {
  return statementsOf(synthesis, fn).flatMap((statement) => statement.Action);
}

export function environmentOf({ stack, template }: Synthesis, fn: ServiceFunction): Record<string, unknown> {
  return template.toJSON().Resources[logicalIdOf(stack, fn)].Properties.Environment.Variables;
}
