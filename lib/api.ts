import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Route } from '../shared/routes.ts';
import { AccessRoles } from './access-roles.ts';
import { constructIdOf } from './construct-id.ts';
import { type ServiceContext, ServiceFunction } from './service-function.ts';

/** The entry that answers requests no route matches. */
export type FallbackRoute = Pick<Route, 'operation' | 'handler' | 'access'>;

/**
 * The HTTP API: one function per route-table entry, and the fallback on `$default`.
 *
 * Built in two steps because the functions' environment carries the API's own URL: the API
 * exists first, then `serve` adds the functions. In CloudFormation this is no cycle: the
 * functions depend on the API, the routes and integrations on the functions.
 */
export class Api extends Construct {
  readonly httpApi: HttpApi;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Software-licensing API',
      createDefaultStage: true,
    });
  }

  /** The API's base URL, without a trailing slash. */
  get endpoint(): string {
    return this.httpApi.apiEndpoint;
  }

  /**
   * The API's functions share one role per access set and one log group (every line names its
   * route): a role, a policy and a log group for each of dozens of functions would take the
   * stack past CloudFormation's 500 resources.
   */
  serve(routes: readonly Route[], fallback: FallbackRoute, context: ServiceContext): void {
    const roles = new AccessRoles(this, 'Roles', context.resources);
    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    const functionFor = (id: string, entry: FallbackRoute) =>
      new ServiceFunction(this, id, {
        ...context,
        handlerModule: entry.handler,
        access: entry.access,
        role: roles.roleFor(entry.access),
        logGroup,
      });

    for (const route of routes) {
      const id = constructIdOf(route.operation);
      this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${id}Integration`, functionFor(id, route)),
      });
    }

    const fallbackId = constructIdOf(fallback.operation);
    new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.httpApi,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration(`${fallbackId}Integration`, functionFor(fallbackId, fallback)),
    });
  }
}
