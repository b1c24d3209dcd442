import { NestedStack } from 'aws-cdk-lib';
import { type HttpApi, HttpRoute, type HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { Route } from '../shared/routes.ts';
import { AccessRoles } from './access-roles.ts';
import { constructIdOf } from './construct-id.ts';
import { type ServiceContext, ServiceFunction } from './service-function.ts';

/** A route-table entry (or the fallback) with the key API Gateway routes requests to it by. */
export interface FamilyRoute extends Pick<Route, 'operation' | 'handler' | 'access'> {
  routeKey: HttpRouteKey;
}

export interface RouteFamilyProps {
  /** The family's name, as `familyOf` gives it. */
  name: string;
  routes: readonly FamilyRoute[];
  /** The API of the parent stack the routes are added to. */
  httpApi: HttpApi;
  context: ServiceContext;
}

/**
 * One family of the API's routes in a nested stack of its own, so that no template comes near
 * CloudFormation's 500 resources however many routes the table lists: each route's function,
 * its integration, its Lambda permission and its route on the parent's HTTP API; the roles,
 * one per access set; and one log group (every line names its route).
 */
export class RouteFamily extends NestedStack {
  /** The family's name, e.g. `licenses`. */
  readonly name: string;
  /** The family's routes, each with its key (`GET /v1/...`, `$default`: the `Route` dimension of the API's metrics). */
  readonly routes: readonly FamilyRoute[];
  /** The family's functions, by operation. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;

  constructor(scope: Construct, id: string, props: RouteFamilyProps) {
    super(scope, id, { description: `Software-licensing API: the ${props.name} routes` });
    this.name = props.name;
    this.routes = props.routes;

    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    const roles = new AccessRoles(this, 'Roles', props.context.resources, logGroup);
    const functions = new Map<string, ServiceFunction>();
    for (const route of props.routes) {
      const routeId = constructIdOf(route.operation);
      const fn = new ServiceFunction(this, routeId, {
        ...props.context,
        operation: route.operation,
        handler: route.handler,
        access: route.access,
        role: roles.roleFor(route.access),
        logGroup,
      });
      new HttpRoute(this, `${routeId}Route`, {
        httpApi: props.httpApi,
        routeKey: route.routeKey,
        integration: new HttpLambdaIntegration('Integration', fn),
      });
      functions.set(route.operation, fn);
    }
    this.functions = functions;
  }
}
