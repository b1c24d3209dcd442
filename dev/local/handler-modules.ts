/**
 * Loads handler modules the way Lambda does: once, on first use, and keeps them. A module
 * that failed to load is not remembered, so one written while the stack runs is picked up.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export type Handler<TEvent = unknown, TResult = unknown> = (event: TEvent, context: unknown) => Promise<TResult> | TResult;

export function createHandlerLoader(root: string) {
  const loaded = new Map<string, Promise<Handler>>();

  async function load(modulePath: string): Promise<Handler> {
    const module = (await import(pathToFileURL(resolve(root, modulePath)).href)) as { handler?: unknown };
    if (typeof module.handler !== 'function') throw new Error(`${modulePath} does not export a handler function`);
    return module.handler as Handler;
  }

  return function handlerFor(modulePath: string): Promise<Handler> {
    let pending = loaded.get(modulePath);
    if (!pending) {
      pending = load(modulePath);
      loaded.set(modulePath, pending);
      pending.catch(() => loaded.delete(modulePath));
    }
    return pending;
  };
}
