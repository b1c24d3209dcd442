/**
 * Matches a request to a route the way API Gateway's HTTP API does: by method and path
 * segments, `{name}` matching one non-empty segment, and the most specific route winning
 * (a literal segment beats a parameter at the first position where two candidates differ).
 * Anything unmatched goes to the `$default` route: the fallback handler.
 */
import type { HandlerSource } from '#shared/routes.ts';

export interface RouteLike {
  operation: string;
  method: string;
  path: string;
  handler: HandlerSource;
}

export interface FallbackLike {
  operation: string;
  handler: HandlerSource;
}

export type RouteMatch =
  | { kind: 'route'; route: RouteLike; routeKey: string; pathParameters: Record<string, string> }
  | { kind: 'fallback'; route: FallbackLike; routeKey: '$default' };

type Segment = { literal: string } | { parameter: string };

interface CompiledRoute {
  route: RouteLike;
  segments: Segment[];
}

const PARAMETER = /^\{([A-Za-z0-9_]+)\}$/;

function compile(route: RouteLike): CompiledRoute {
  const segments = route.path
    .split('/')
    .slice(1)
    .map((part): Segment => {
      const [, parameter] = PARAMETER.exec(part) ?? [];
      return parameter !== undefined ? { parameter } : { literal: part };
    });
  return { route, segments };
}

/** Negative when `a` is more specific than `b`. */
function bySpecificity(a: CompiledRoute, b: CompiledRoute): number {
  // Routes of different lengths never compete; ordering by length keeps the sort consistent.
  if (a.segments.length !== b.segments.length) return a.segments.length - b.segments.length;
  for (const [i, aSegment] of a.segments.entries()) {
    const bSegment = b.segments[i];
    if (bSegment === undefined) break; // not reached: the lengths are equal
    const aLiteral = 'literal' in aSegment;
    const bLiteral = 'literal' in bSegment;
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  return 0;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function createRouter(routes: readonly RouteLike[], fallback: FallbackLike) {
  const compiled = routes.map(compile).sort(bySpecificity);

  return function match(method: string, rawPath: string): RouteMatch {
    const requestSegments = rawPath.split('/').slice(1).map(decodeSegment);
    for (const candidate of compiled) {
      if (candidate.route.method !== method) continue;
      if (candidate.segments.length !== requestSegments.length) continue;
      const pathParameters: Record<string, string> = {};
      const matches = candidate.segments.every((segment, i) => {
        const value = requestSegments[i];
        if (value === undefined) return false;
        if ('literal' in segment) return segment.literal === value;
        if (value === '') return false;
        pathParameters[segment.parameter] = value;
        return true;
      });
      if (matches) {
        return { kind: 'route', route: candidate.route, routeKey: `${method} ${candidate.route.path}`, pathParameters };
      }
    }
    return { kind: 'fallback', route: fallback, routeKey: '$default' };
  };
}
