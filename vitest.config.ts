import { defineConfig } from 'vitest/config';

/** The files of the stack's tests that must run each in a fresh process (the project `stack-isolated`). */
const STACK_ISOLATED = ['test/http/faults.test.ts', 'test/http/address-limits.test.ts', 'test/http/local-stack.test.ts'];

/** The fast files that change their process (mocked modules, spies, environment variables): each in a fresh one. */
const FAST_ISOLATED = [
  'test/unit/deliver-webhook.test.ts',
  'test/unit/handlers.test.ts',
  'test/unit/purge-environment.test.ts',
  'test/unit/resumable.test.ts',
  'test/unit/seal.test.ts',
  'test/unit/secret-meta.test.ts',
  'test/unit/signature.test.ts',
  'test/unit/webhook-pinning.test.ts',
];

/**
 * Three projects: `fast` needs nothing running (unit tests and the CDK stack's); `stack` and
 * `stack-isolated` talk to one local stack started for the run, which they share
 * (test/support/local-stack-setup.ts), over HTTP or through the SDK, the second with each file in
 * a process of its own. `npm run test:fast` runs the first alone; `npm test` runs all side by side.
 */
export default defineConfig({
  test: {
    exclude: ['test/bench/**', 'node_modules/**'],
    pool: 'forks',
    // HTTP tests spend much of their time waiting on the local stack (DynamoDB Local, the queue
    // poller), not on a core: three files at once on two cores keep the stack busy (the default,
    // cores − 1, runs one file at a time here).
    maxWorkers: 3,
    // Lambda runs Node.js 22; the SDK's notice about Node.js 20 is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // A safety net, far above what any test takes even on a busy machine: what decides a test is
    // its assertions, and its waits end on the stack's own signal (test/support/patience.ts).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default', './test/support/slowest-files.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/unit/**/*.test.ts', 'test/infra/**/*.test.ts'],
          exclude: FAST_ISOLATED,
          globalSetup: ['test/support/offline-setup.ts'],
          setupFiles: ['test/support/offline-environment.ts'],
          // They leave nothing behind in their process: a worker runs them in one module graph rather
          // than importing the route table and the CDK again for each.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'fast-isolated',
          include: FAST_ISOLATED,
          globalSetup: ['test/support/offline-setup.ts'],
          setupFiles: ['test/support/offline-environment.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'stack',
          include: ['test/http/**/*.test.ts', 'test/store/**/*.test.ts'],
          exclude: STACK_ISOLATED,
          globalSetup: ['test/support/local-stack-setup.ts'],
          setupFiles: ['test/support/aws-environment.ts'],
          // These files talk to the stack over HTTP or the SDK and leave nothing behind in their
          // process, so a worker runs them one after another in one module graph rather than
          // importing the same modules again for each (about a second and a half each).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'stack-isolated',
          // Files that change their process: handlers called in it (hooks on its SDK clients, its
          // environment read by its modules), a stack or a server of their own, spies on its logger.
          include: ['test/in-process/**/*.test.ts', ...STACK_ISOLATED],
          globalSetup: ['test/support/local-stack-setup.ts'],
          setupFiles: ['test/support/aws-environment.ts'],
        },
      },
    ],
  },
});
