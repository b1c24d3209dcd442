/**
 * The AWS SDK's default credential chain as a Lambda function uses it. Lambda hands every function
 * its execution role's credentials in environment variables, the chain's first link; its other
 * links (shared profiles, SSO, web identity, process, container and instance metadata) and the
 * STS and SSO clients they carry never run there, yet make up about 90 KB of each bundle.
 *
 * The stack's bundles take this module in place of `@aws-sdk/credential-provider-node` (an esbuild
 * alias in lib/service-function.ts); run from source (the local stack, the tests) the SDK keeps its
 * whole chain. Without the variables the first AWS call fails with the SDK's own message.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
