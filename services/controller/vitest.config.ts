import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PGlite's first creation takes seconds on a loaded 2-core machine; the domain suite needs none of this.
    testTimeout: 20_000,
    hookTimeout: 90_000,
  },
});
