/**
 * The fuzzer's HTTP: one request as built, its answer as received (status, headers, text), how
 * long it took, or why none came. Nothing is checked here (checks.ts does).
 */

export interface Outgoing {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface Incoming {
  status: number;
  headers: Headers;
  text: string;
  ms: number;
  /** Why no answer came: a refused connection, a reset, the client's own timeout. */
  error?: string;
}

/** API Gateway gives up on a request after 30 s; so does the fuzzer. */
const GIVE_UP_MS = 30_000;

export async function send(api: string, request: Outgoing): Promise<Incoming> {
  const started = performance.now();
  try {
    const response = await fetch(`${api}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(GIVE_UP_MS),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, ms: performance.now() - started };
  } catch (error) {
    const cause =
      error instanceof Error ? `${error.name}: ${error.message}${error.cause ? ` (${String(error.cause)})` : ''}` : String(error);
    return { status: 0, headers: new Headers(), text: '', ms: performance.now() - started, error: cause };
  }
}

export interface JsonCall {
  authorization?: string;
  environment?: string;
  body?: unknown;
}

/** A JSON:API request of the fixtures: the parsed answer, or a thrown error naming what was refused. */
export async function jsonCall(api: string, method: string, path: string, options: JsonCall = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { accept: 'application/vnd.api+json' };
  if (options.authorization) headers.authorization = options.authorization;
  if (options.environment) headers['service-environment'] = options.environment;
  if (options.body !== undefined) headers['content-type'] = 'application/vnd.api+json';
  const answer = await send(api, {
    method,
    path,
    headers,
    body: options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body)),
  });
  if (answer.error) throw new Error(`${method} ${path}: ${answer.error}`);
  return { status: answer.status, body: answer.text ? JSON.parse(answer.text) : undefined };
}
