import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The process tests run dist/main.js; build it once before any file starts.
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 10_000,
    hookTimeout: 30_000,
  },
});
