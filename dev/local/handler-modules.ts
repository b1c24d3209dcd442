/**
 * Loads handlers the way Lambda does: once, on first use, and keeps them. An operation's handler
 * is built by its factory (shared/routes.ts, `HandlerSource`) once, as its function's entry does.
 * A module that failed to load is not remembered, so one written while the stack runs is picked up.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HandlerSource } from '#shared/routes.ts';

export type Handler<TEvent = unknown, TResult = unknown> = (event: TEvent, context: unknown) => Promise<TResult> | TResult;

export function createHandlerLoader(root: string) {
  const loaded = new Map<string, Promise<Handler>>();

  async function load({ module: modulePath, factory }: HandlerSource): Promise<Handler> {
    const module = (await import(pathToFileURL(resolve(root, modulePath)).href)) as Record<string, unknown>;
    const name = factory ?? 'handler';
    const exported = module[name];
    if (typeof exported !== 'function') throw new Error(`${modulePath} does not export a function ${name}`);
    const handler = factory ? (exported as () => unknown)() : exported;
    if (typeof handler !== 'function') throw new Error(`${modulePath}'s ${name} does not build a handler`);
    return handler as Handler;
  }

  return function handlerFor(source: HandlerSource): Promise<Handler> {
    const key = `${source.module}#${source.factory ?? ''}`;
    let pending = loaded.get(key);
    if (!pending) {
      pending = load(source);
      loaded.set(key, pending);
      pending.catch(() => loaded.delete(key));
    }
    return pending;
  };
}
