import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // PGlite compiles its WebAssembly on open: seconds on a busy 2-core machine.
    hookTimeout: 60_000,
    testTimeout: 20_000,
  },
});
