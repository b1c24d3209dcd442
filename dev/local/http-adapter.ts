/**
 * The local API: a node:http server that turns each request into an API Gateway HTTP API (v2)
 * event, calls the same handler module Lambda would, and writes the handler's result back.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { bytesOver, LAMBDA_RESPONSE_BYTES } from '#shared/http/answer-size.ts';
import { bodyTooLarge, MAX_BODY_BYTES } from '#shared/http/body.ts';
import { ApiError, errorResult } from '#shared/http/errors.ts';
import { buildApiEvent } from './api-event.ts';
import { createHandlerLoader } from './handler-modules.ts';
import { lambdaContext } from './lambda-context.ts';
import { createRouter, type FallbackLike, type RouteLike } from './router.ts';
import { closeServer, listeningPort } from './servers.ts';

export interface HttpServerOptions {
  routes: readonly RouteLike[];
  fallback: FallbackLike;
  /** Directory the routes' handler paths are relative to. */
  root: string;
  port?: number;
  host?: string;
  region?: string;
  /** API Gateway gives up on an integration after 30 s. */
  timeoutSeconds?: number;
  log?: (message: string, error?: unknown) => void;
  /**
   * Answers for paths under LOCAL_PATH_PREFIX, which only the local stack has (no route of the
   * API starts so); undefined leaves the request to the route table.
   */
  localEndpoints?: (path: string, query: URLSearchParams) => Promise<APIGatewayProxyStructuredResultV2 | undefined>;
}

/** Where the local stack's own endpoints live, outside the API's `/v1`. */
export const LOCAL_PATH_PREFIX = '/_local/';

export interface LocalHttpServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The body, or undefined once it passes MAX_BODY_BYTES: reading stops there, nothing more is kept. */
function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    if (Number(request.headers['content-length']) > MAX_BODY_BYTES) return resolveBody(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    const take = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      request.off('data', take);
      chunks.length = 0;
      resolveBody(undefined);
    };
    request.on('data', take);
    request.on('end', () => resolveBody(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** A handler may return a bare value; API Gateway then answers 200 with it as JSON. */
function normaliseResult(result: unknown): APIGatewayProxyStructuredResultV2 {
  if (typeof result === 'object' && result !== null && 'statusCode' in result) return result as APIGatewayProxyStructuredResultV2;
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: typeof result === 'string' ? result : JSON.stringify(result ?? null),
  };
}

function writeResult(response: ServerResponse, result: APIGatewayProxyStructuredResultV2, requestId: string): void {
  const body = result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
  if (result.cookies?.length) response.setHeader('set-cookie', result.cookies);
  response.setHeader('apigw-requestid', requestId);
  response.setHeader('content-length', body.length);
  response.writeHead(result.statusCode ?? 200);
  response.end(body);
}

/** 413 in the API's error format; the connection closes rather than read the rest. */
const tooLarge = (requestId: string): APIGatewayProxyStructuredResultV2 => errorResult(bodyTooLarge(), requestId, { Connection: 'close' });

/**
 * A request the HTTP parser refuses before any handler sees it: a head (request line and
 * headers) over Node's limit of 16 KB → 431, other bytes that are not HTTP → 400, both in the
 * API's error format on a connection that then closes. Anything else (a reset, a timeout, an
 * answer already under way on the connection) closes it, as Node does. Deployed, API Gateway
 * refuses such requests itself.
 */
function refuseUnparsable(error: NodeJS.ErrnoException, socket: Duplex): void {
  const answering = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  if (!error.code?.startsWith('HPE_') || !socket.writable || answering?.headersSent) return void socket.destroy();
  const requestId = randomUUID();
  const refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError(431, [{ detail: 'The request line and headers are larger than 16 KB', code: 'HEADERS_TOO_LARGE' }])
      : new ApiError(400, [{ detail: 'The request is not valid HTTP', code: 'REQUEST_MALFORMED' }]);
  const result = errorResult(refusal, requestId, { Connection: 'close', 'apigw-requestid': requestId });
  const body = Buffer.from(result.body);
  const head = [
    `HTTP/1.1 ${result.statusCode} ${refusal.errors[0]?.title ?? ''}`,
    ...Object.entries(result.headers).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${body.length}`,
  ].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), body]));
}

const internalError = (requestId: string): APIGatewayProxyStructuredResultV2 =>
  errorResult(new ApiError(500, [{ detail: 'The server could not complete the request.', code: 'INTERNAL_ERROR' }]), requestId);

export async function startHttpServer(options: HttpServerOptions): Promise<LocalHttpServer> {
  const match = createRouter(options.routes, options.fallback);
  const handlerFor = createHandlerLoader(options.root);
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const timeoutSeconds = options.timeoutSeconds ?? 30;
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const body = await readBody(request);
    if (!body) return writeResult(response, tooLarge(requestId), requestId);
    const method = request.method ?? 'GET';
    const [rawPath = '/', rawQuery = ''] = (request.url ?? '/').split('?');
    if (method === 'GET' && rawPath.startsWith(LOCAL_PATH_PREFIX) && options.localEndpoints) {
      const local = await options.localEndpoints(rawPath, new URLSearchParams(rawQuery));
      if (local) return writeResult(response, local, requestId);
    }
    const matched = match(method, rawPath);
    const event = buildApiEvent({
      request,
      body,
      routeKey: matched.routeKey,
      pathParameters: matched.kind === 'route' ? matched.pathParameters : undefined,
      requestId,
    });
    let result: APIGatewayProxyStructuredResultV2;
    try {
      const handler = await handlerFor(matched.route.handler);
      result = normaliseResult(await handler(event, lambdaContext(matched.route.operation, timeoutSeconds, region)));
    } catch (error) {
      // The handlers' own pipeline turns every error into a response; reaching this is a bug.
      log(`${method} ${rawPath} (${matched.route.operation}) failed without a response; request ${requestId}`, error);
      result = internalError(requestId);
    }
    // Lambda refuses a response over its limit and API Gateway answers 500: so does the local
    // server, so that an answer the pipeline let through too large fails here as it would deployed.
    const bytes = bytesOver(result, LAMBDA_RESPONSE_BYTES);
    if (bytes !== undefined) {
      log(`${method} ${rawPath} (${matched.route.operation}) answered ${bytes} bytes, over Lambda's limit; request ${requestId}`);
      result = internalError(requestId);
    }
    writeResult(response, result, requestId);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      log('Could not answer a request', error);
      const requestId = randomUUID();
      if (!response.headersSent) writeResult(response, internalError(requestId), requestId);
      else response.destroy();
    });
  });
  server.on('clientError', refuseUnparsable);
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolveListen());
  });
  const port = listeningPort(server);
  const host = options.host ?? '127.0.0.1';
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, port, stop: () => closeServer(server) };
}
