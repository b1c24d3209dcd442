import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    // One in-memory local stack for the whole run; unit tests simply ignore it.
    globalSetup: ['test/support/local-stack-setup.ts'],
    setupFiles: ['test/support/aws-environment.ts'],
    pool: 'forks',
    // HTTP tests spend most of their time waiting on the local stack (DynamoDB Local, the queue
    // poller), not on a core: three files at once on two cores keep the stack busy (the default,
    // cores − 1, runs one file at a time here).
    maxWorkers: 3,
    // Lambda runs Node.js 22; the SDK's notice about Node.js 20 is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
