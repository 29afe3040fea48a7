import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    // Spawned services and fresh databases take seconds on a loaded 2-core machine, and `npm test` runs
    // several test files at once.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
