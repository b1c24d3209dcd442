/**
 * Synthesises the stack the way `cdk synth` does (same cdk.json context, so the same feature
 * flags), minus bundling, over stub handler modules: the infrastructure tests depend on the
 * route table, not on the handlers being written.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { LicensingStack, type LicensingStackProps } from '../../lib/licensing-stack.ts';
import type { ServiceFunction } from '../../lib/service-function.ts';
import type { OperatorSettings } from '../../lib/settings.ts';
import { fallback, type HandlerSource, routes, schedules, streamWorkers, workers } from '../../shared/routes.ts';

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
  /** The parent stack's template. */
  template: Template;
  /** The template of the stack, parent or family, that holds `construct`. */
  templateOf(construct: IConstruct): Template;
}

export function synthesize({ validate = false, ...options }: SynthesisOptions = {}): Synthesis {
  const settings = { ...baseSettings, ...options.settings };
  const app = new App({
    context: { ...cdkContext, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: validate,
  });
  const stack = new LicensingStack(app, 'LicensingService', {
    env,
    codeRoot: stubCodeRoot([
      ...[...routes, ...(options.routes ?? [])].map((route) => route.handler),
      ...[...workers, ...(options.workers ?? [])].map((worker) => worker.handler),
      ...[...schedules, ...(options.schedules ?? [])].map((schedule) => schedule.handler),
      ...[...streamWorkers, ...(options.streamWorkers ?? [])].map((worker) => worker.handler),
      fallback.handler,
    ]),
    ...options,
    settings,
  });
  const templates = new Map<Stack, Template>();
  const templateOf = (construct: IConstruct) => {
    const holder = Stack.of(construct);
    let template = templates.get(holder);
    if (!template) {
      template = Template.fromStack(holder);
      templates.set(holder, template);
    }
    return template;
  };
  return { stack, template: templateOf(stack), templateOf };
}

/**
 * A directory holding, at each handler module's path, a module exporting an empty handler (or a
 * factory of one) under each name the table reads, and the lock file NodejsFunction requires.
 */
function stubCodeRoot(handlers: readonly HandlerSource[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'licensing-handlers-'));
  const exported = new Map<string, Set<string>>();
  for (const { module, factory } of handlers) exported.set(module, (exported.get(module) ?? new Set()).add(factory ?? 'handler'));
  for (const [module, names] of exported) {
    mkdirSync(path.dirname(path.join(root, module)), { recursive: true });
    const stub = (name: string) =>
      name === 'handler' ? 'export const handler = async () => {};' : `export const ${name} = () => async () => {};`;
    writeFileSync(path.join(root, module), `${[...names].map(stub).join('\n')}\n`);
  }
  writeFileSync(path.join(root, 'package-lock.json'), '{}\n');
  return root;
}

/** The function built for an operation: a route's in its family's stack, a worker's, a schedule's or a stream worker's in the parent. */
export function functionFor(stack: LicensingStack, operation: string): ServiceFunction {
  const fn = [
    ...stack.families.map((family) => family.functions),
    stack.workerFunctions,
    stack.scheduleFunctions,
    stack.streamWorkerFunctions,
  ]
    .map((functions) => functions.get(operation))
    .find((candidate) => candidate !== undefined);
  if (!fn) throw new Error(`no function for ${operation}`);
  return fn;
}

/** The logical id of a construct's resource in the template of the stack that holds it. */
export function logicalIdOf(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

/** Every stack of the synthesis: the parent, then each family's. */
export function stacksOf({ stack }: Synthesis): Stack[] {
  // The family stacks, and the others nested in it (the monitoring's).
  return [stack, ...stack.node.findAll().filter((construct): construct is NestedStack => construct instanceof NestedStack)];
}

/**
 * A value of `holder`'s template in the parent's terms: a family stack sees the parent's table,
 * queues and API through parameters, which the parent sets to its own references. Translating
 * them back lets an assertion name the parent's resources, wherever the value was written.
 */
export function inParentTerms<Value>({ stack, template }: Synthesis, holder: IConstruct, value: Value): Value {
  const nested = Stack.of(holder);
  if (!(nested instanceof NestedStack) || !nested.nestedStackResource) return value;
  const resource = template.toJSON().Resources[stack.getLogicalId(nested.nestedStackResource)];
  const parameters = resource.Properties.Parameters as Record<string, unknown>;
  const translate = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(translate);
    if (node === null || typeof node !== 'object') return node;
    const { Ref: reference } = node as { Ref?: unknown };
    if (typeof reference === 'string' && Object.keys(node).length === 1 && reference in parameters) return parameters[reference];
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, translate(child)]));
  };
  return translate(value) as Value;
}

export interface SynthesisedResource {
  /** The stack whose template holds it. */
  stack: Stack;
  logicalId: string;
  /** Its properties, in the parent's terms. */
  properties: Record<string, unknown>;
}

/** Every resource of a type, in every template of the synthesis. */
export function resourcesOf(synthesis: Synthesis, type: string): SynthesisedResource[] {
  return stacksOf(synthesis).flatMap((holder) =>
    Object.entries(synthesis.templateOf(holder).findResources(type)).map(([logicalId, resource]) => ({
      stack: holder,
      logicalId,
      properties: inParentTerms(synthesis, holder, resource.Properties ?? {}),
    })),
  );
}

/** A construct's resource properties, in the parent's terms. */
export function propertiesOf(synthesis: Synthesis, construct: IConstruct): Record<string, unknown> {
  const resource = synthesis.templateOf(construct).toJSON().Resources[logicalIdOf(construct)];
  return inParentTerms(synthesis, construct, resource.Properties);
}

export interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown;
  Condition?: unknown;
}

/** Every statement of the inline policies attached to a function's role, in the parent's terms. */
export function statementsOf(synthesis: Synthesis, fn: ServiceFunction): Statement[] {
  const { role } = fn;
  if (!role) throw new Error(`${fn.node.path} has no role`);
  const policies = synthesis.templateOf(role).findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: logicalIdOf(role) }] } });
  return Object.values(policies)
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Array<Statement & { Action: string | string[] }>)
    .map((statement) => inParentTerms(synthesis, role, { ...statement, Action: [statement.Action].flat() }));
}

export function actionsOf(synthesis: Synthesis, fn: ServiceFunction): string[] {
  return statementsOf(synthesis, fn).flatMap((statement) => statement.Action);
}

export function environmentOf(synthesis: Synthesis, fn: ServiceFunction): Record<string, unknown> {
  const { Environment } = propertiesOf(synthesis, fn) as { Environment: { Variables: Record<string, unknown> } };
  return Environment.Variables;
}
