/**
 * Builds the API Gateway HTTP API (payload format 2.0) event for a request, as API Gateway
 * would hand it to Lambda.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export const LOCAL_API_ID = 'local';
const LOCAL_ACCOUNT_ID = '123456789012';

/** Content API Gateway passes as text; everything else arrives base64-encoded. */
const TEXT_CONTENT = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded|graphql|yaml|x-yaml)\b)/i;

function decode(component: string): string {
  try {
    return decodeURIComponent(component);
  } catch {
    return component;
  }
}

/** Repeated header names are joined with commas, names lower-cased; cookies travel apart. */
export function collectHeaders(rawHeaders: readonly string[]): { headers: Record<string, string>; cookies?: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  // Names and values alternate; a name without its value ends the list.
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const [rawName, value] = rawHeaders.slice(i, i + 2);
    if (rawName === undefined || value === undefined) break;
    const name = rawName.toLowerCase();
    if (name === 'cookie') {
      cookies.push(
        ...value
          .split(';')
          .map((cookie) => cookie.trim())
          .filter(Boolean),
      );
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  return cookies.length > 0 ? { headers, cookies } : { headers };
}

/** Decoded parameters; a repeated name's values are joined with commas, as API Gateway does. */
export function parseQueryString(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const parameters: Record<string, string> = {};
  for (const pair of rawQueryString.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decode(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : decode(pair.slice(equals + 1));
    parameters[name] = name in parameters ? `${parameters[name]},${value}` : value;
  }
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}

function isText(contentType: string | undefined, body: Buffer): boolean {
  if (contentType !== undefined) return TEXT_CONTENT.test(contentType.trim());
  // Without a declared type, text is passed through when it is valid UTF-8.
  return Buffer.from(body.toString('utf8'), 'utf8').equals(body);
}

/** `dd/Mon/yyyy:HH:mm:ss +0000`, the format of requestContext.time. */
function requestTime(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

export interface EventInput {
  request: IncomingMessage;
  body: Buffer;
  routeKey: string;
  pathParameters?: Record<string, string>;
  requestId?: string;
  now?: Date;
}

export function buildApiEvent({
  request,
  body,
  routeKey,
  pathParameters,
  requestId,
  now = new Date(),
}: EventInput): APIGatewayProxyEventV2 {
  const target = request.url ?? '/';
  const queryStart = target.indexOf('?');
  const rawPath = queryStart === -1 ? target : target.slice(0, queryStart);
  const rawQueryString = queryStart === -1 ? '' : target.slice(queryStart + 1);
  const { headers, cookies } = collectHeaders(request.rawHeaders);
  const domainName = (headers.host ?? 'localhost').replace(/:\d+$/, '');
  const [domainPrefix = domainName] = domainName.split('.');
  const method = request.method ?? 'GET';
  // The peer of the connection, as API Gateway reports it; never a header the client writes (X-Forwarded-For).
  const sourceIp = (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const queryStringParameters = parseQueryString(rawQueryString);

  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    headers,
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: LOCAL_API_ID,
      domainName,
      domainPrefix,
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: requestId ?? randomUUID(),
      routeKey,
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
  if (cookies) event.cookies = cookies;
  if (queryStringParameters) event.queryStringParameters = queryStringParameters;
  if (pathParameters && Object.keys(pathParameters).length > 0) event.pathParameters = pathParameters;
  if (body.length > 0) {
    const text = isText(headers['content-type'], body);
    event.body = text ? body.toString('utf8') : body.toString('base64');
    event.isBase64Encoded = !text;
  }
  return event;
}
