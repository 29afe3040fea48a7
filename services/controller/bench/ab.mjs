// The command path of two builds, side by side: `node bench/ab.mjs --base <checkout> [--pairs N]`.
// <checkout> is another clone of this repository, built (`node scripts/bootstrap.mjs`), e.g. the commit
// before a change. Both builds run under this harness and broker (run.mjs with BENCH_SKIP_HTTP=1,
// BENCH_SKIP_BARE=1 and BENCH_SYSTEM_DIR), in alternating order (base, this, this, base, …) so a
// machine that speeds up or slows down over the run weighs on both alike. Each pair gives a ratio
// this/base; the median of those ratios is the figure, and every run is printed beside it.
// Knobs as run.mjs (defaults here: BENCH_CYCLES=1000, BENCH_WARMUP_CYCLES=1000, BENCH_EPO_CYCLES=5).
// Writes bench/out/controller-ab.json at this repository's root.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pkgDir, repoDir } from './stack.mjs';
import { quantile, round } from './stats.mjs';

const { values } = parseArgs({
  options: { base: { type: 'string' }, pairs: { type: 'string', default: '3' } },
});
if (!values.base) {
  process.stderr.write('usage: node bench/ab.mjs --base <built checkout> [--pairs N]\n');
  process.exit(2);
}
const baseDir = resolve(values.base);
const pairs = Math.max(1, Number(values.pairs) || 3);
const outFile = join(repoDir, 'bench', 'out', 'controller.json');

/** One bench run of the builds in `systemDir`; the figures ab compares. */
function runOnce(systemDir) {
  const env = {
    BENCH_CYCLES: '1000',
    BENCH_WARMUP_CYCLES: '1000',
    BENCH_EPO_CYCLES: '5',
    ...process.env,
    BENCH_SKIP_HTTP: '1',
    BENCH_SKIP_BARE: '1',
    BENCH_SYSTEM_DIR: systemDir,
  };
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(pkgDir, 'bench', 'run.mjs')], {
      cwd: pkgDir,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', fail);
    child.on('exit', (code) => {
      if (code !== 0) return fail(new Error(`bench run for ${systemDir} exited ${code}`));
      const out = JSON.parse(readFileSync(outFile, 'utf8'));
      const c = out.details.start_cycles;
      if (c.start_to_relay_on.missed || c.start_to_desired.missed || Object.keys(c.refused_starts).length) {
        return fail(new Error(`bench run for ${systemDir} missed messages or had starts refused`));
      }
      done({
        relay_p50: c.start_to_relay_on.p50_ms,
        relay_p99: c.start_to_relay_on.p99_ms,
        desired_p50: c.start_to_desired.p50_ms,
        desired_p99: c.start_to_desired.p99_ms,
        node_cpu_ms: c.cpu_ms_per_cycle.node,
        controller_cpu_ms: c.cpu_ms_per_cycle.controller,
        load: out.machine.loadavg_1m_after,
      });
    });
  });
}

const median = (xs) => round(quantile(xs, 0.5));
const FIGURES = [
  'relay_p50',
  'relay_p99',
  'desired_p50',
  'desired_p99',
  'node_cpu_ms',
  'controller_cpu_ms',
];
const runs = [];
for (let i = 0; i < pairs; i += 1) {
  // ABBA: the order flips every pair.
  const order = i % 2 === 0 ? ['base', 'this'] : ['this', 'base'];
  const pair = {};
  for (const which of order) {
    const dir = which === 'base' ? baseDir : repoDir;
    // Once more on a failed start-up: a loopback port picked free can be taken before it is bound.
    const r = await runOnce(dir).catch((err) => {
      process.stdout.write(`pair ${i + 1} ${which}: ${err.message}; once more\n`);
      return runOnce(dir);
    });
    pair[which] = r;
    process.stdout.write(
      `pair ${i + 1} ${which.padEnd(4)}  ${FIGURES.map((f) => `${f} ${r[f]}`).join('  ')}  load ${r.load.toFixed(1)}\n`,
    );
  }
  runs.push(pair);
}

const summary = {};
for (const f of FIGURES) {
  const ratios = runs.map((p) => p.this[f] / p.base[f]).filter(Number.isFinite);
  summary[f] = {
    base_median: median(runs.map((p) => p.base[f])),
    this_median: median(runs.map((p) => p.this[f])),
    ratio_median: median(ratios),
    ratios: ratios.map((r) => round(r)),
  };
  const s = summary[f];
  process.stdout.write(
    `${f.padEnd(17)} base ${s.base_median} ms  this ${s.this_median} ms  this/base median ${s.ratio_median} (pairs ${s.ratios.join(', ')})\n`,
  );
}
const dir = join(repoDir, 'bench', 'out');
mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, 'controller-ab.json'),
  `${JSON.stringify({ at: new Date().toISOString(), base: baseDir, pairs, cpus: cpus().length, load_end: loadavg()[0], runs, summary }, null, 2)}\n`,
);
