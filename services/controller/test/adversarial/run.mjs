#!/usr/bin/env node
// `npm run test:adversarial -- --runs N [--seed S] [--path P] [--survey] [--record]`: the link's model-based
// suite alone, with a longer budget than CI's. A failing run prints the seed and path that replay it.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    seed: { type: 'string' },
    path: { type: 'string' },
    survey: { type: 'boolean' },
    record: { type: 'boolean' },
  },
});
for (const [name, v] of [
  ['runs', values.runs],
  ['seed', values.seed],
]) {
  if (v !== undefined && !/^-?\d+$/.test(v)) {
    console.error(`--${name} takes a whole number, got ${JSON.stringify(v)}`);
    process.exit(2);
  }
}
const env = { ...process.env };
if (values.runs) env.ADVERSARIAL_RUNS = values.runs;
if (values.seed) env.ADVERSARIAL_SEED = values.seed;
if (values.path) env.ADVERSARIAL_PATH = values.path;
if (values.survey) env.ADVERSARIAL_SURVEY = '1';
// --record: a passing run writes its figures where bench/report.mjs reads them (bench/results, in git).
if (values.record)
  env.ADVERSARIAL_RECORD = join(
    dirname(fileURLToPath(import.meta.url)),
    '..',
    '..',
    '..',
    '..',
    'bench',
    'results',
    'adversarial-link.json',
  );
// The suite runs in memory: no database server is started for it.
env.TEST_DATABASE_URL ??= 'postgres://127.0.0.1:1/not-used-by-the-adversarial-suite';
const pkg = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = spawnSync('npx', ['vitest', 'run', 'test/adversarial/link.model.test.ts'], {
  cwd: pkg,
  env,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
