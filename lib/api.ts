import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import type { Route } from '../shared/routes.ts';
import { constructIdOf } from './construct-id.ts';
import { ServiceFunction, type ServiceContext } from './service-function.ts';

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

  serve(routes: readonly Route[], fallback: FallbackRoute, context: ServiceContext): void {
    for (const route of routes) {
      const id = constructIdOf(route.operation);
      this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${id}Integration`, this.functionFor(id, route, context)),
      });
    }

    const fallbackId = constructIdOf(fallback.operation);
    new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.httpApi,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration(`${fallbackId}Integration`, this.functionFor(fallbackId, fallback, context)),
    });
  }

  private functionFor(id: string, entry: FallbackRoute, context: ServiceContext): ServiceFunction {
    return new ServiceFunction(this, id, { ...context, handlerModule: entry.handler, access: entry.access });
  }
}
