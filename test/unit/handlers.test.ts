/**
 * Each operation's handler is the factory its resource's handlers.ts exports under the
 * declaration's key (shared/routes.ts): the factory must build the handler of that very
 * declaration, or a function would serve another operation's route. The pipeline is replaced
 * by a stand-in that hands back what it was built from.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { type DeclaredRoute, routes } from '../../shared/routes.ts';
import { root } from '../support/imports.ts';

vi.mock('../../shared/http/pipeline.ts', () => ({ operation: (declaration: unknown) => ({ declaration }) }));

/** Whether a plain page's handler answers its declaration's one answer, of its media type. */
async function servesAsDeclared(route: DeclaredRoute, handler: unknown): Promise<boolean> {
  if (typeof handler !== 'function') return false;
  const reply = (await handler({}, {})) as { statusCode?: number; headers?: Record<string, string> };
  const [[status, answer] = []] = Object.entries(route.answers);
  const type = answer && 'html' in answer ? 'text/html' : answer && 'json' in answer ? 'application/json' : undefined;
  return String(reply.statusCode) === status && type !== undefined && (reply.headers?.['Content-Type'] ?? '').startsWith(type);
}

describe("the resources' handlers", () => {
  it('build, under each declaration’s key, the handler of that declaration', async () => {
    const built = await Promise.all(
      routes.map(async (route) => {
        const module: Record<string, unknown> = await import(pathToFileURL(path.join(root, route.handler.module)).href);
        const factory = module[route.handler.factory ?? 'handler'];
        expect(typeof factory, `${route.operation}: ${route.handler.module} exports ${route.handler.factory}`).toBe('function');
        const handler = (factory as () => unknown)();
        // A plain page (outside the pipeline) builds its function directly: it answers what its declaration does.
        if (route.plain) return (await servesAsDeclared(route, handler)) ? route.operation : `${route.operation} answers otherwise`;
        const { declaration } = handler as { declaration?: { operation?: string } };
        return declaration?.operation ?? `${route.operation} built no pipeline`;
      }),
    );
    expect(built).toEqual(routes.map((route) => route.operation));
  });

  it('export nothing but the factories of their resource’s operations', async () => {
    const modules = [...new Set(routes.map((route) => route.handler.module))];
    for (const module of modules) {
      const exported = Object.keys(await import(pathToFileURL(path.join(root, module)).href)).sort();
      const declared = routes.filter((route) => route.handler.module === module).map((route) => route.handler.factory);
      expect(exported, module).toEqual([...declared].sort());
    }
  });
});
