import { Validations } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, HttpRouteKey, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Construct } from 'constructs';
import type { Route } from '../shared/routes.ts';
import { constructIdOf } from './construct-id.ts';
import { groupByFamily } from './families.ts';
import { type FamilyRoute, RouteFamily } from './route-family.ts';
import type { ServiceContext } from './service-function.ts';

/** The entry that answers requests no route matches. */
export type FallbackRoute = Pick<Route, 'operation' | 'handler' | 'access'>;

/**
 * The HTTP API and its default stage, here; its routes and their functions in one nested stack
 * per route family (lib/families.ts), fallback included.
 *
 * Built in two steps because the functions' environment carries the API's own URL: the API
 * exists first, then `serve` adds the families. In CloudFormation this is no cycle: the family
 * stacks take the API's id and URL as parameters, and the API depends on none of them.
 */
export class Api extends Construct {
  readonly httpApi: HttpApi;
  /** The `$default` stage, deployed automatically on every change of a route. */
  readonly defaultStage: HttpStage;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // Covers every family's routes, built beneath this construct.
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Routes are public by design (log-in, validate-key, password requests, the reference) or authenticate the ' +
        "service's own bearer tokens and license keys in the function (shared/auth/authenticate.ts), which no API " +
        'Gateway authorizer can check without reading the table.',
    });
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Software-licensing API',
      createDefaultStage: true,
    });
    const stage = this.httpApi.defaultStage;
    if (!(stage instanceof HttpStage)) throw new Error('The HTTP API was built without its default stage');
    this.defaultStage = stage;
  }

  /** The API's base URL, without a trailing slash. */
  get endpoint(): string {
    return this.httpApi.apiEndpoint;
  }

  /** Adds a nested stack per route family, holding its routes' functions, and returns them. */
  serve(routes: readonly Route[], fallback: FallbackRoute, context: ServiceContext): RouteFamily[] {
    const keyed: FamilyRoute[] = [
      ...routes.map((route) => ({ ...route, routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]) })),
      { ...fallback, routeKey: HttpRouteKey.DEFAULT },
    ];
    return [...groupByFamily(keyed)].map(
      ([family, familyRoutes]) =>
        new RouteFamily(this, constructIdOf(family), { name: family, routes: familyRoutes, httpApi: this.httpApi, context }),
    );
  }
}
