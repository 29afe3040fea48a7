import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    // A notifier start creates and migrates a fresh database: seconds on a busy 2-core machine, and
    // `npm test` runs several test files at once.
    hookTimeout: 120_000,
    testTimeout: 60_000,
  },
});
