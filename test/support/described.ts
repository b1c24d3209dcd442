/**
 * Every answer the HTTP tests receive is checked against the API's description (the document
 * `buildOpenApi()` generates, which docs/openapi.json holds): its status must be one of its
 * operation's responses, its content type one that response describes, its body valid against
 * that response's schema. A request no route matches must get the NoRoute answer.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createRouter } from '#dev/local/router.ts';
import { buildOpenApi, type OpenApiDocument } from '#shared/reference/openapi.ts';
import { fallback, routes } from '#shared/routes.ts';
import { schemaValidators } from './openapi-ajv.ts';

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema: unknown }>;
}

interface Answer {
  method: string;
  /** The path as requested, query string included. */
  path: string;
  status: number;
  contentType: string | null;
  text: string;
}

const match = createRouter(routes, fallback);

let checker: Promise<Checker> | undefined;

/** Throws, naming the operation, the status and the first faults, if the description does not allow the answer. */
export async function checkDescribed(answer: Answer): Promise<void> {
  checker ??= buildOpenApi().then((document) => new Checker(document));
  (await checker).check(answer);
}

class Checker {
  private readonly validator: (at: readonly string[]) => ValidateFunction;

  constructor(private readonly document: OpenApiDocument) {
    this.validator = schemaValidators(document);
  }

  check(answer: Answer): void {
    const path = answer.path.split('?')[0]!;
    const found = match(answer.method, path);
    if (found.kind === 'fallback') {
      const fail = failure(`${answer.method} ${path} (no route)`, answer);
      // A body or a head too large is refused before any route is looked for.
      if (answer.status === 413 || answer.status === 431) {
        this.checkResponse(['components', 'responses', `Error${answer.status}`], answer, fail);
        return;
      }
      if (answer.status !== 404) throw fail(`a request no route matches must answer 404 (components.responses.NoRoute)`);
      this.checkResponse(['components', 'responses', 'NoRoute'], answer, fail);
      return;
    }
    const { operation, path: template } = found.route;
    const fail = failure(`${operation} (${answer.method} ${template})`, answer);
    const described = this.document.paths[template]?.[answer.method.toLowerCase()];
    if (!described) throw fail('the description has no such operation: declare it (shared/resources/<resource>/operations.ts)');
    const responses = described.responses as Record<string, ResponseObject>;
    const status = String(answer.status);
    if (!responses[status]) throw fail(`the description lists only ${Object.keys(responses).join(', ')}`);
    this.checkResponse(['paths', template, answer.method.toLowerCase(), 'responses', status], answer, fail);
  }

  /** Checks the answer against the response object at `at` (a pointer's segments into the description), following a $ref. */
  private checkResponse(at: string[], answer: Answer, fail: (why: string, errors?: string[]) => Error): void {
    let response = valueAt(this.document, at) as ResponseObject;
    if (response.$ref) {
      at = response.$ref.slice(2).split('/');
      response = valueAt(this.document, at) as ResponseObject;
    }
    if (!response.content) {
      if (answer.text !== '') throw fail('the description has no body for it, and one was sent');
      return;
    }
    const mediaType = (answer.contentType ?? '').split(';')[0].trim().toLowerCase();
    if (!response.content[mediaType]) {
      throw fail(`content type ${answer.contentType ?? '(none)'}; the description has ${Object.keys(response.content).join(', ')}`);
    }
    if (!mediaType.endsWith('json')) return;
    if (answer.text === '') throw fail('no body, where the description has one');
    const validate = this.validator([...at, 'content', mediaType, 'schema']);
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      throw fail('the body is not JSON');
    }
    if (!validate(body)) {
      throw fail(
        'the body does not match the description',
        (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`),
      );
    }
  }
}

const failure =
  (operation: string, answer: Answer) =>
  (why: string, errors: string[] = []) =>
    new Error(
      [
        `Answer not allowed by the API's description (docs/openapi.json): ${operation} answered ${answer.status}: ${why}`,
        ...errors.map((error) => `  ${error}`),
        `  body: ${answer.text.slice(0, 500)}`,
      ].join('\n'),
    );

function valueAt(document: unknown, at: string[]): unknown {
  return at.reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], document);
}
