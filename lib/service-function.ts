import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, Validations } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { Access } from '../shared/routes.ts';
import { accessEnvironment, grantAccess, type ServiceResources } from './access.ts';
import { functionNameOf } from './construct-id.ts';

/** The repository root: the route table's handler paths are relative to it. */
export const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

/** What every function of the service shares. */
export interface ServiceContext {
  /** Directory the handler paths are relative to, holding package-lock.json. */
  codeRoot: string;
  /** The service's (top-level) stack name: it prefixes every function's name (`functionNameOf`). */
  stackName: string;
  resources: ServiceResources;
  environment: Record<string, string>;
}

export interface ServiceFunctionProps extends ServiceContext {
  /** The route table's operation the function serves: it names the function. */
  operation: string;
  /** Handler module as the route table writes it, e.g. `functions/users/create.ts`. */
  handlerModule: string;
  access: readonly Access[];
  /** Defaults to 10 s: ample for one request, and well inside API Gateway's 30 s limit. */
  timeout?: Duration;
  /** A role already granted exactly `access` (shared by functions alike); otherwise the function gets its own. */
  role?: IRole;
  /** A log group shared with other functions; otherwise the function gets its own. */
  logGroup?: ILogGroup;
}

/**
 * A Lambda function for one operation, built the one way every function of the service is
 * built, and granted exactly the access its route-table entry declares.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id, {
      entry: path.resolve(props.codeRoot, props.handlerModule),
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
      environment: {
        ...props.environment,
        ...accessEnvironment(props.access, props.resources),
        POWERTOOLS_SERVICE_NAME: 'licensing',
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
        // Some bundled CommonJS dependencies call require(), which an ES module lacks.
        banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
        // The SDK in the runtime changes under us; bundling the locked versions keeps what was tested.
        bundleAwsSDK: true,
      },
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is the runtime the service is built, tested and benchmarked for (cold-start budgets in ' +
        'docs/benchmarks.md); a newer runtime is adopted deliberately, with the benchmarks re-run.',
    });
    if (!props.role) grantAccess(this, this, props.access, props.resources);
  }
}
