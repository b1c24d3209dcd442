/**
 * Handlers called in the test's own process, as API Gateway would call them, with the DynamoDB
 * commands the service's clients send watched: for tests that count what a request reads.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { lambdaContext } from '#dev/local/lambda-context.ts';
import { onServiceClient } from '#shared/client-hooks.ts';
import type { RequestContext } from '#shared/http/pipeline.ts';

/**
 * Calls `listen` with the name and input of every command the service's DynamoDB clients send.
 * A client joins the watch when it is made: call this before the first request.
 */
export function onDynamoCommand(listen: (name: string, input: Record<string, unknown>) => void): void {
  onServiceClient((client, service) => {
    if (service !== 'dynamodb') return;
    client.middlewareStack.add(
      (next, context) => (args) => {
        listen(String(context.commandName), args.input as Record<string, unknown>);
        return next(args);
      },
      { step: 'initialize', name: 'watchCommands' },
    );
  });
}

/** A handler as the pipeline makes it (a middy handler: its third argument is optional). */
type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context & { request: Partial<RequestContext> },
  ...rest: never[]
) => Promise<unknown>;

export interface Call {
  /** The account's id or slug, as the path names it. */
  account: string;
  /** The route's path below the account, with its parameters named (`/licenses/{id}/machines`). */
  route: string;
  /** The values of the route's parameters. */
  params?: Record<string, string>;
  /** A bearer token; none for a route anyone may call. */
  token?: string;
  body?: unknown;
  method?: string;
  query?: Record<string, string>;
}

export interface Answer {
  status: number;
  body: any;
}

/** Calls `handler` (the operation `operation`) with the request `call` describes, and its answer. */
export async function invoke(handler: Handler, operation: string, call: Call): Promise<Answer> {
  const method = call.method ?? (call.body === undefined ? 'GET' : 'POST');
  const params = call.params ?? {};
  const path = Object.entries(params).reduce((route, [name, value]) => route.replace(`{${name}}`, value), call.route);
  const query = new URLSearchParams(call.query ?? {});
  const event = {
    version: '2.0',
    routeKey: `${method} /v1/accounts/{account}${call.route}`,
    rawPath: `/v1/accounts/${call.account}${path}`,
    rawQueryString: query.toString(),
    ...(call.query && { queryStringParameters: call.query }),
    headers: {
      host: 'api.example',
      accept: 'application/vnd.api+json',
      ...(call.token && { authorization: `Bearer ${call.token}` }),
      ...(call.body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }),
    },
    pathParameters: { account: call.account, ...params },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
    requestContext: { requestId: randomUUID(), http: { method, path: '/', sourceIp: '127.0.0.1' } },
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
  const context = lambdaContext(operation, 10, 'us-east-1') as Context & { request: Partial<RequestContext> };
  const result = (await handler(event, context)) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode ?? 0, body: JSON.parse(result.body || '{}') };
}
