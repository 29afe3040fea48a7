// `npm test`: lint, typecheck and every package's tests through turbo, then a table of where the time
// went (per package and task, slowest first, from turbo's run summary), so the slow parts of the suite
// are in front of whoever waits for it. Exits with turbo's status.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { latestSummary, timeTable } from './test-times.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const runsDir = join(root, '.turbo', 'runs');
const began = Date.now();

const args = ['run', 'lint', 'typecheck', 'test', '--concurrency=1', '--continue', '--summarize'];
const turbo = spawnSync('npx', ['--no-install', 'turbo', ...args, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
const status = turbo.status ?? 1;

const summary = latestSummary(runsDir, began);
process.stdout.write('\nTime per package and task (slowest first):\n');
process.stdout.write(
  summary ? `${timeTable(summary)}\n` : '(no turbo run summary was written)\n',
);
process.stdout.write(`whole run ${((Date.now() - began) / 1000).toFixed(0)} s\n`);
process.exit(status);
