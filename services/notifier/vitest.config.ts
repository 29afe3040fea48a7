import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    // A notifier start creates and migrates a fresh database: seconds on a busy 2-core machine.
    hookTimeout: 60_000,
    testTimeout: 20_000,
  },
});
