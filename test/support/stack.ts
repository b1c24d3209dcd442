/**
 * The local stack the test run started (see local-stack-setup.ts), for tests that talk to it.
 *
 *   import { api, stack } from './stack.ts';
 *   const response = await api('/v1/accounts/demo', { headers: { authorization: `Bearer ${token}` } });
 */
import { inject } from 'vitest';
import type { LocalStackEndpoints } from '#dev/local/stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    localStack: LocalStackEndpoints;
  }
}

export function stack(): LocalStackEndpoints {
  return inject('localStack');
}

/** fetch against the local API; `path` starts with `/`. */
export function api(path: string, init?: RequestInit): Promise<Response> {
  return fetch(`${stack().api}${path}`, init);
}
