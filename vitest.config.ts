import { defineConfig } from 'vitest/config';
import { LongestFirst } from './vitest.sequencer.mjs';

/**
 * `npm test`'s one vitest run over every package (each keeps its own vitest.config.ts, and `npx vitest run`
 * in a package still runs that package alone). One scheduler for all of them: most test files wait on
 * processes, sockets and timers rather than compute (the network-fault suite holds one worker for five
 * minutes at almost no CPU), so WORKERS files run at once on a 2-core machine,
 * the files known to take longest first (LongestFirst), and no more than WORKERS whatever the packages.
 * Four were measured slower than three on a clean clone (979 s against 931 s): the CPU, not the waiting,
 * is then what the run is short of.
 */
const WORKERS = Number(process.env.OUTPOST_TEST_WORKERS) || 3;
/** `npm test` names a folder for vitest's JSON report, from which it lists the slowest files. */
const timesDir = process.env.OUTPOST_TEST_TIMES_DIR;

export default defineConfig({
  test: {
    projects: [
      'contracts/vitest.config.ts',
      'broker/vitest.config.ts',
      'scripts/vitest.config.ts',
      'packages/*/vitest.config.ts',
      'services/*/vitest.config.ts',
    ],
    maxWorkers: WORKERS,
    reporters: timesDir ? ['default', ['json', { outputFile: `${timesDir}/report.json` }]] : ['default'],
    sequence: { sequencer: LongestFirst },
  },
});
