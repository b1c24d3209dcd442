import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    // One in-memory local stack for the whole run; unit tests simply ignore it.
    globalSetup: ['test/support/local-stack-setup.ts'],
    setupFiles: ['test/support/aws-environment.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
