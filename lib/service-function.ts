import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, Validations } from 'aws-cdk-lib';
import { type IRole, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct, IConstruct } from 'constructs';
import type { Access } from '../shared/access.ts';
import type { HandlerSource } from '../shared/routes.ts';
import { accessEnvironment, grantAccess, type ServiceResources } from './access.ts';
import { constructIdOf, functionNameOf } from './construct-id.ts';
import { entryFile } from './handler-entry.ts';

/** The repository root: the route table's handler paths are relative to it. */
export const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

/** Some bundled CommonJS dependencies call require(), which an ES module lacks. */
export const BUNDLE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Modules every bundle takes in place of a package's, from the project root: the SDK's credential
 * chain cut to the link Lambda uses (see the module), about 90 KB less in every bundle; and semver,
 * which only the X-Ray SDK's patcher of the AWS SDK v2 needs, about 28 KB.
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': './shared/lambda-credentials.ts',
  semver: './shared/lambda-semver.ts',
};

/** What every function of the service shares. */
export interface ServiceContext {
  /** Directory the handler paths are relative to, holding package-lock.json. */
  codeRoot: string;
  /** The service's (top-level) stack name: it prefixes every function's name (`functionNameOf`). */
  stackName: string;
  /** Active X-Ray tracing through Powertools Tracer (the `tracing` setting). */
  tracing: boolean;
  resources: ServiceResources;
  environment: Record<string, string>;
}

export interface ServiceFunctionProps extends ServiceContext {
  /** The route table's operation the function serves: it names the function. */
  operation: string;
  /** Where the handler comes from, as the route table writes it. */
  handler: HandlerSource;
  access: readonly Access[];
  /** Defaults to 10 s: ample for one request, and well inside API Gateway's 30 s limit. */
  timeout?: Duration;
  /** A role already granted exactly `access` (shared by functions alike); otherwise the function gets its own. */
  role?: IRole;
  /** A log group shared with other functions; otherwise the function gets its own. */
  logGroup?: ILogGroup;
}

/** What a worker (a queue consumer, a schedule, a stream consumer) declares in the route table. */
export interface WorkerEntry {
  operation: string;
  handler: HandlerSource;
  access: readonly Access[];
}

/**
 * A worker's function, with its log group and role made beside it: the role may write to that log
 * group only (AWS's basic execution policy would let it write to any) and has exactly the worker's
 * access. `kind` describes the role ("queue consumer", "scheduled function"...).
 */
export function workerFunction(scope: Construct, worker: WorkerEntry, kind: string, timeoutSeconds: number, context: ServiceContext) {
  const id = constructIdOf(worker.operation);
  const logGroup = new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH });
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `The ${worker.operation} ${kind}`,
  });
  logGroup.grantWrite(role);
  grantAccess(scope, role, worker.access, context.resources);
  return new ServiceFunction(scope, id, {
    ...context,
    operation: worker.operation,
    handler: worker.handler,
    access: worker.access,
    timeout: Duration.seconds(timeoutSeconds),
    role,
    logGroup,
  });
}

/**
 * A Lambda function for one operation, built the one way every function of the service is
 * built, and granted exactly the access its route-table entry declares.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    // Read from the context where the function is built, so every function, wherever it sits in the app, agrees.
    const { tracing } = props;
    super(scope, id, {
      // Operations' entries are written beside the synthesis output, inside the project root esbuild runs in.
      entry: entryFile(props.codeRoot, path.join(props.codeRoot, 'cdk.out', 'entries'), props.operation, props.handler),
      handler: 'handler',
      depsLockFilePath: path.join(props.codeRoot, 'package-lock.json'),
      projectRoot: props.codeRoot,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      functionName: functionNameOf(props.stackName, props.operation),
      role: props.role,
      logGroup: props.logGroup ?? new LogGroup(scope, `${id}Logs`, { retention: RetentionDays.ONE_MONTH }),
      // Active: Lambda samples requests and records them, the function adds its subsegments
      // (shared/tracer.ts), and the role may write to X-Ray. Off: no tracing configuration and no
      // X-Ray permission, and the function never loads the X-Ray SDK.
      tracing: tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      environment: {
        ...props.environment,
        ...accessEnvironment(props.access, props.resources),
        POWERTOOLS_SERVICE_NAME: 'licensing',
        POWERTOOLS_TRACE_ENABLED: String(tracing),
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        format: OutputFormat.ESM,
        // Prefer packages' ES module builds, which tree-shake better than their CommonJS ones.
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        // Stack traces need file and line only; leaving the sources out keeps the zip small.
        sourcesContent: false,
        banner: BUNDLE_BANNER,
        // The SDK in the runtime changes under us; bundling the locked versions keeps what was tested.
        bundleAwsSDK: true,
        // esbuild resolves the paths from the project root, where NodejsFunction runs it.
        esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([module, path]) => [`--alias:${module}`, path])),
      },
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is the runtime the service is built, tested and benchmarked for (cold-start budgets in ' +
        'docs/benchmarks.md); a newer runtime is adopted deliberately, with the benchmarks re-run.',
    });
    if (!props.role) grantAccess(this, this, props.access, props.resources);
    if (tracing && this.role) acknowledgeTraceWrites(this.role);
  }
}

/**
 * Active tracing adds to the function's role the one statement on every resource: X-Ray's
 * PutTraceSegments and PutTelemetryRecords name no resource, they write the account's traces. Any
 * other statement on * in a route's role fails the growth test (test/infra/growth.test.ts).
 */
const TRACE_WRITES = {
  id: 'AwsSolutions-IAM5[Resource::*]',
  reason: "X-Ray's PutTraceSegments and PutTelemetryRecords take no resource: active tracing grants them on *",
};

/** Once per role: the API's functions share theirs. */
function acknowledgeTraceWrites(role: IConstruct): void {
  const acknowledged = role.node.metadata.some(
    (entry) =>
      entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY && Object.keys(entry.data).some((id) => id.endsWith(TRACE_WRITES.id)),
  );
  if (!acknowledged) Validations.of(role).acknowledge(TRACE_WRITES);
}
