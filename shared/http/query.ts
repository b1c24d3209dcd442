/**
 * Query strings in the bracket form JSON:API clients send: `page[size]=10` → {page: {size: '10'}},
 * `events[]=a&events[]=b` → {events: ['a', 'b']}. Parsed from the raw query string, not from
 * API Gateway's already-joined parameters, so repeated and nested names survive.
 */
import * as z from 'zod/mini';
import { invalidQuery } from '../errors.ts';
import { isUuid } from '../store/records.ts';

export type QueryValue = string | string[] | { [key: string]: QueryValue };
export type Query = Record<string, QueryValue>;

/** Names that would reach an object's prototype rather than a key of its own. */
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

export function parseQuery(raw: string | undefined): Query {
  // Objects without a prototype: no name a client sends can reach Object.prototype.
  const query: Query = Object.create(null);
  if (!raw) return query;
  for (const pair of raw.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    const [, key, brackets = ''] = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name) ?? [];
    if (key === undefined) throw invalidQuery(name, `The query parameter '${name}' is malformed`);
    const path = [...brackets.matchAll(/\[([^[\]]*)\]/g)].map(([, segment = '']) => segment);
    if ([key, ...path].some((segment) => FORBIDDEN_NAMES.has(segment))) {
      throw invalidQuery(name, `The query parameter '${name}' is not allowed`);
    }
    assign(query, key, path, value, name);
  }
  return query;
}

function assign(target: Record<string, QueryValue>, key: string, path: string[], value: string, name: string) {
  const existing = target[key];
  const [next, ...rest] = path;
  if (next === undefined) {
    if (existing !== undefined) throw invalidQuery(name, `The query parameter '${name}' is given more than once`);
    target[key] = value;
    return;
  }
  if (next === '') {
    if (rest.length > 0 || (existing !== undefined && !Array.isArray(existing))) {
      throw invalidQuery(name, `The query parameter '${name}' is malformed`);
    }
    target[key] = [...(existing ?? []), value];
    return;
  }
  if (existing !== undefined && (typeof existing !== 'object' || Array.isArray(existing))) {
    throw invalidQuery(name, `The query parameter '${name}' is malformed`);
  }
  const child = (existing as Record<string, QueryValue> | undefined) ?? Object.create(null);
  target[key] = child;
  assign(child, next, rest, value, name);
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw invalidQuery(text, 'The query string is not correctly percent-encoded');
  }
}

/** Serialises a query back in bracket form with brackets percent-encoded, for links. */
export function formatQuery(query: Query): string {
  const parts: string[] = [];
  const walk = (name: string, value: QueryValue) => {
    if (typeof value === 'string') parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    else if (Array.isArray(value)) for (const v of value) parts.push(`${encodeURIComponent(`${name}[]`)}=${encodeURIComponent(v)}`);
    else for (const [k, v] of Object.entries(value)) walk(`${name}[${k}]`, v);
  };
  for (const [name, value] of Object.entries(query)) walk(name, value);
  return parts.join('&');
}

/**
 * The query's values as a declaration's schema reads them (shared/http/declaration.ts); the first
 * value it refuses is a 400 naming the parameter in bracket form (`filter[product]`).
 */
export function parseQueryWith<T>(query: Query, schema: z.ZodMiniType<T>): T {
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const [head = '', ...rest] = issue?.path.map(String) ?? [];
  const parameter = `${head}${rest.map((key) => `[${key}]`).join('')}`;
  throw invalidQuery(parameter, `${parameter} ${issue?.message ?? 'is not valid'}`);
}

/** A query filter naming a related record by id (`?machine=<uuid>`): lower-cased, as ids are stored. */
export const uuidFilter = () =>
  z.optional(
    z.pipe(
      z.string().check(z.refine(isUuid, { message: 'must be a UUID' })),
      z.transform((id) => id.toLowerCase()),
    ),
  );
