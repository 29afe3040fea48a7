// `npm test`: every package's tests in one vitest run (vitest.config.ts at the root: one scheduler, the
// longest files first), and beside it lint and typecheck through turbo at a lower CPU priority, so they
// use the time the tests spend waiting. Then where the time went: lint and typecheck per package (turbo's
// run summary), tests per package and the slowest test files (vitest's JSON report). The run's figures
// also go to bench/out/test-suite.json for bench/REPORT.md. Exits non-zero when either part failed.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageTable, slowestTable, suiteResult, testFiles } from './test-files.mjs';
import { latestSummary, timeTable } from './test-times.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const runsDir = join(root, '.turbo', 'runs');
const filesDir = join(root, '.turbo', 'test-files');
const began = Date.now();
rmSync(filesDir, { recursive: true, force: true });
mkdirSync(filesDir, { recursive: true });

/** Runs a command with the terminal's output; resolves to its exit status. */
function run(cmd, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env });
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const extra = process.argv.slice(2);
const [checks, tests] = await Promise.all([
  run('nice', [
    '-n',
    '10',
    'npx',
    '--no-install',
    'turbo',
    'run',
    'lint',
    'typecheck',
    // Only these tasks: the pretest step built everything, and a build now (even a cache hit, which
    // turbo restores by writing the outputs again) would rewrite dist files that tests are loading.
    '--only',
    '--concurrency=2',
    '--continue',
    '--summarize',
  ]),
  // Beside two other files on two cores, a test with a real-time bound (a 100 ms debounce, a failsafe within
  // two intervals) now and then misses it by the scheduler's delay, not the product's: such a test runs once
  // more (the report marks it retried), and one that fails twice fails the run. On the command line, as every
  // package's config is its own project and does not inherit the root config's test options.
  run('npx', ['--no-install', 'vitest', 'run', '--retry=1', ...extra], {
    ...process.env,
    OUTPOST_TEST_TIMES_DIR: filesDir,
  }),
]);
const status = checks !== 0 ? checks : tests;
const wallSeconds = (Date.now() - began) / 1000;

const summary = latestSummary(runsDir, began);
process.stdout.write(
  `\nlint and typecheck: ${checks === 0 ? 'ok' : 'FAILED'}; tests: ${tests === 0 ? 'ok' : 'FAILED'}\n`,
);
process.stdout.write('\nLint and typecheck per package (slowest first):\n');
process.stdout.write(summary ? `${timeTable(summary)}\n` : '(no turbo run summary was written)\n');
const files = testFiles(filesDir, root);
process.stdout.write('\nTests per package (slowest first):\n');
process.stdout.write(`${packageTable(files)}\n`);
process.stdout.write('\nSlowest test files:\n');
process.stdout.write(`${slowestTable(files, 10)}\n`);
process.stdout.write(`whole run ${wallSeconds.toFixed(0)} s\n`);
try {
  const out = join(root, 'bench', 'out');
  mkdirSync(out, { recursive: true });
  const result = suiteResult({ files, wallSeconds, status, at: new Date(began).toISOString() });
  writeFileSync(join(out, 'test-suite.json'), `${JSON.stringify(result, null, 2)}\n`);
} catch (err) {
  process.stdout.write(`(the run's figures were not written: ${err.message})\n`);
}
process.exit(status);
