import { defineConfig } from 'vitest/config';

/**
 * Two projects: `fast` needs nothing running (unit tests and the CDK stack's), `stack` talks to
 * one local stack started for the run (test/support/local-stack-setup.ts) over HTTP or through
 * the SDK. `npm run test:fast` runs the first alone; `npm test` runs both side by side.
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
          globalSetup: ['test/support/offline-setup.ts'],
          setupFiles: ['test/support/offline-environment.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'stack',
          include: ['test/http/**/*.test.ts', 'test/store/**/*.test.ts', 'test/in-process/**/*.test.ts'],
          globalSetup: ['test/support/local-stack-setup.ts'],
          setupFiles: ['test/support/aws-environment.ts'],
        },
      },
    ],
  },
});
