#!/usr/bin/env node
// What each import costs a service's idle memory: RSS and V8 heap after importing one module into a fresh
// Node process, against an empty one, and the same imports one after another in a single process (the
// order a service pays them in, where shared dependencies are counted once, at their first importer).
// Each figure is the median of BENCH_IMPORT_RUNS fresh processes, read after a full GC and a short idle so
// that start-up garbage is not counted. Needs a build (npm run build): it imports the compiled packages.
// Usage: node bench/import-cost.mjs [--json FILE] (default bench/out/import-cost.json, which
// bench/report.mjs reads); knobs: BENCH_IMPORT_RUNS (5), BENCH_IMPORT_NODE_ARGS
// (extra Node flags for every measured process, e.g. "--max-semi-space-size=1").
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Math.max(1, Math.round(Number(process.env.BENCH_IMPORT_RUNS) || 5));
const NODE_ARGS = (process.env.BENCH_IMPORT_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const jsonOut = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : null;
const round2 = (x) => Number(x.toFixed(2));
const loadBefore = round2(loadavg()[0]);

// Bare specifiers resolve from the runtime package (where the services get them); workspace packages by
// their dist files. Each entry: label, then what it imports.
const fromRuntime = (spec) => ({ spec, base: join(root, 'packages', 'runtime', 'package.json') });
const fromController = (spec) => ({ spec, base: join(root, 'services', 'controller', 'package.json') });
const file = (path) => ({ url: pathToFileURL(join(root, path)).href });

const MODULES = [
  ['zod', [fromRuntime('zod')]],
  ['@outpost/contracts (zod schemas built at load)', [file('contracts/dist/index.js')]],
  ['hono', [fromRuntime('hono')]],
  ['@hono/node-server', [fromRuntime('@hono/node-server')]],
  ['@hono/zod-openapi', [fromRuntime('@hono/zod-openapi')]],
  ['pino', [fromRuntime('pino')]],
  ['prom-client', [fromRuntime('prom-client')]],
  ['mqtt', [fromRuntime('mqtt')]],
  [
    'drizzle-orm + drizzle-orm/node-postgres',
    [fromController('drizzle-orm'), fromController('drizzle-orm/node-postgres')],
  ],
  ['pg', [fromController('pg')]],
  ['@outpost/runtime', [file('packages/runtime/dist/index.js')]],
];

/** The order the services pay them in; each step adds one import to the same process. */
const CHAIN = [
  'zod',
  '@outpost/contracts (zod schemas built at load)',
  'hono',
  '@hono/node-server',
  '@hono/zod-openapi',
  'pino',
  'prom-client',
  'mqtt',
  '@outpost/runtime',
  'drizzle-orm + drizzle-orm/node-postgres',
  'pg',
];

// The measured process: imports, then GC twice around a short idle, then prints its memory.
const PROBE = `
const { createRequire } = await import('node:module');
const { pathToFileURL } = await import('node:url');
const steps = JSON.parse(process.argv[1]);
const { readFileSync } = await import('node:fs');
const kib = (status, key) => Number(new RegExp('^' + key + ':\\\\s+(\\\\d+) kB', 'm').exec(status)?.[1] ?? NaN) * 1024;
const sample = async () => {
  for (let i = 0; i < 2; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 150)); }
  const m = process.memoryUsage();
  const status = readFileSync('/proc/self/status', 'utf8');
  return {
    rss: m.rss,
    anon: kib(status, 'RssAnon'),
    file: kib(status, 'RssFile'),
    heap: m.heapUsed,
    external: m.external + m.arrayBuffers,
  };
};
const out = [await sample()];
for (const step of steps) {
  for (const t of step) {
    const url = t.url ?? pathToFileURL(createRequire(t.base).resolve(t.spec)).href;
    await import(url);
  }
  out.push(await sample());
}
process.stdout.write(JSON.stringify(out));
`;

function probe(steps) {
  const out = execFileSync(
    process.execPath,
    [...NODE_ARGS, '--expose-gc', '--input-type=module', '-e', PROBE, JSON.stringify(steps)],
    { cwd: root, encoding: 'utf8' },
  );
  return JSON.parse(out);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// MB (10^6 bytes) to one decimal, as bench/footprint.mjs reports them.
const mb = (bytes) => Number((bytes / 1e6).toFixed(1));
const byLabel = new Map(MODULES);

/** Median over RUNS processes of every sample the probe takes. */
function measure(steps) {
  const runs = Array.from({ length: RUNS }, () => probe(steps));
  return runs[0].map((_, i) => ({
    rss: median(runs.map((r) => r[i].rss)),
    anon: median(runs.map((r) => r[i].anon)),
    file: median(runs.map((r) => r[i].file)),
    heap: median(runs.map((r) => r[i].heap)),
    external: median(runs.map((r) => r[i].external)),
  }));
}

const isolated = [];
let empty = null;
for (const [label, targets] of MODULES) {
  const [base, after] = measure([targets]);
  empty ??= base;
  isolated.push({
    label,
    rss_mb: mb(after.rss - base.rss),
    anon_mb: mb(after.anon - base.anon),
    file_mb: mb(after.file - base.file),
    heap_mb: mb(after.heap - base.heap),
    external_mb: mb(after.external - base.external),
  });
}
const chainSamples = measure(CHAIN.map((l) => byLabel.get(l)));
const chain = CHAIN.map((label, i) => ({
  label,
  rss_mb: mb(chainSamples[i + 1].rss - chainSamples[i].rss),
  anon_mb: mb(chainSamples[i + 1].anon - chainSamples[i].anon),
  file_mb: mb(chainSamples[i + 1].file - chainSamples[i].file),
  heap_mb: mb(chainSamples[i + 1].heap - chainSamples[i].heap),
  total_rss_mb: mb(chainSamples[i + 1].rss),
}));

const w = Math.max(...MODULES.map(([l]) => l.length));
const print = (s) => process.stdout.write(`${s}\n`);
print(
  `Node ${process.version}${NODE_ARGS.length ? ` ${NODE_ARGS.join(' ')}` : ''}; median of ${RUNS} processes; MB = 10^6 bytes`,
);
print(
  `empty process: RSS ${mb(empty.rss)} MB (anonymous ${mb(empty.anon)}, file-backed ${mb(empty.file)}), V8 heap used ${mb(empty.heap)} MB`,
);
print(
  'RSS = anon + file; file-backed pages are the node binary and module files, shared between processes\n',
);
const cols = (cells) => cells.map((c, i) => (i ? String(c).padStart(6) : String(c).padEnd(w))).join('  ');
print('alone, in a fresh process (delta against the empty process):');
print(cols(['import', 'RSS', 'anon', 'file', 'heap', 'ext']));
for (const r of isolated) print(cols([r.label, r.rss_mb, r.anon_mb, r.file_mb, r.heap_mb, r.external_mb]));
print('\none after another in one process (what each adds to what came before):');
print(cols(['import', 'RSS', 'anon', 'file', 'heap', 'total']));
for (const r of chain) print(cols([r.label, r.rss_mb, r.anon_mb, r.file_mb, r.heap_mb, r.total_rss_mb]));

// One row per figure, in the format bench/report.mjs reads (as bench/footprint.mjs writes it).
const rows = [
  {
    name: 'empty Node process, RSS',
    issue: 24,
    figure: mb(empty.rss),
    unit: 'MB',
    context: `anonymous ${mb(empty.anon)} MB, file-backed (the node binary) ${mb(empty.file)} MB; V8 heap used ${mb(empty.heap)} MB`,
  },
  ...isolated.map((r) => ({
    name: `import ${r.label}, alone: RSS added`,
    issue: 24,
    figure: r.rss_mb,
    unit: 'MB',
    context: `anonymous ${r.anon_mb}, file-backed ${r.file_mb}, V8 heap used ${r.heap_mb}, buffers ${r.external_mb} MB`,
  })),
  ...chain.map((r, i) => ({
    name: `import ${r.label}, after ${i ? CHAIN[i - 1] : 'nothing'}: RSS added`,
    issue: 24,
    figure: r.rss_mb,
    unit: 'MB',
    context: `anonymous ${r.anon_mb}, file-backed ${r.file_mb}, V8 heap used ${r.heap_mb} MB; process RSS now ${r.total_rss_mb} MB`,
  })),
];
const out = resolve(jsonOut ?? join(root, 'bench', 'out', 'import-cost.json'));
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify(
    {
      bench: 'import-cost',
      at: new Date().toISOString(),
      machine: {
        loadavg_1m_before: loadBefore,
        loadavg_1m_after: round2(loadavg()[0]),
        node: process.version,
      },
      node_args: NODE_ARGS,
      runs: RUNS,
      results: rows,
    },
    null,
    2,
  )}\n`,
);
print(`\nresults in ${out}`);
