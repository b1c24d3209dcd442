/**
 * The one place the service's AWS SDK clients pass through when they are made (the store's two
 * DynamoDB clients, the queue's SQS client, the reset mail's SES client, the sealer's KMS client),
 * so that a program running the handlers can add to them without the handlers knowing: the local
 * stack registers fault injection here (dev/faults.ts) when it starts, in its own process.
 *
 * Deployed, nothing registers a hook: a client is returned as it was given, and this module is all
 * a bundle carries of it. A hook runs once on every client, whether it was made before the hook was
 * registered (at registration) or after (when it is made); a hook that must act before a client's
 * first request (one with `cacheMiddleware`, whose stack is resolved once) must be registered
 * before that request.
 */
import type { MiddlewareStack } from '@smithy/types';

export type ServiceName = 'dynamodb' | 'sqs' | 'ses' | 'kms';

/** What a hook is given: an SDK client, whose middleware stack it may add to. */
export interface HookedClient {
  // biome-ignore lint/suspicious/noExplicitAny: any client's stack, whatever its commands' input and output
  middlewareStack: MiddlewareStack<any, any>;
}

export type ClientHook = (client: HookedClient, service: ServiceName) => void;

const hooks: ClientHook[] = [];

/** The clients made so far, held weakly: a client no longer used is not kept for a hook to come. */
const made: { client: WeakRef<HookedClient>; service: ServiceName }[] = [];

/** Passes a newly made client of `service` to every hook registered, and keeps it for the hooks to come. */
export function serviceClient<Client extends HookedClient>(client: Client, service: ServiceName): Client {
  for (let i = made.length - 1; i >= 0; i--) if (made[i]?.client.deref() === undefined) made.splice(i, 1);
  made.push({ client: new WeakRef(client), service });
  for (const hook of hooks) hook(client, service);
  return client;
}

/** Runs `hook` on every client made so far and on every one made from now on. */
export function onServiceClient(hook: ClientHook): void {
  hooks.push(hook);
  for (const { client, service } of made) {
    const live = client.deref();
    if (live) hook(live, service);
  }
}
