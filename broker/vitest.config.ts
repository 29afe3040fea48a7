import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The process tests run dist/main.js; build it once before any file starts.
    globalSetup: ['./test/global-setup.ts'],
    // `npm test` runs several test files at once on two cores.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
