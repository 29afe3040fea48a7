import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // `npm test` runs several test files at once on two cores: a file that computes for two seconds
    // alone may take several beside others, which is no failure of what it tests.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
