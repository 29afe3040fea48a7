#!/usr/bin/env node
// One report from every benchmark's JSON: bench/REPORT.md and bench/report.json. Reads the outputs the
// package benches and bench/footprint.mjs leave behind, keeps the newest output of each bench, and turns
// each format into the same rows: name, issue, value, unit, goal, ratio, met.
// Usage: node bench/report.mjs [--in DIR]... [--out DIR] [--merge]
//   --in     where the bench outputs are (repeatable; default bench/out and broker/bench/out of the
//            repository, and bench/results, which is kept in git); also BENCH_REPORT_IN, directories
//            separated by ':'
//   --out    where REPORT.md and report.json go (default bench/); also BENCH_REPORT_OUT
//   --merge  a bench with no output here keeps its run and figures from the report.json already in
//            --out (marked as carried over), so one bench can be added without running them all
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, arch as osArch, release, totalmem, type } from 'node:os';
import { basename, delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The issue each bench's figures belong to, where the bench's own output does not say. */
const ISSUE_OF = { broker: 2, 'simulator-cadence': 6, dashboard: 7 };

/** Benches expected in a full `npm run bench`, and how to run one alone. */
const EXPECTED = {
  controller: 'cd services/controller && npm run bench',
  broker: 'cd broker && npm run bench',
  'simulator-cadence': 'cd services/simulator && npm run bench',
  'simulator-flight': 'cd services/simulator && npm run bench',
  dashboard: 'cd services/dashboard && npm run bench',
  footprint: 'node bench/footprint.mjs',
};

/** Benches that print their figures without writing JSON, so this report cannot show them. */
const PRINT_ONLY = [
  'services/simulator/bench/domain.bench.mjs (receiver parse rate, airport search)',
  'services/simulator/bench/gateway.bench.mjs (receiver TCP/UDP ingest, GET /api/status latency)',
];

const DEFAULT_IN = [
  join(root, 'bench', 'out'),
  join(root, 'broker', 'bench', 'out'),
  join(root, 'bench', 'results'),
];

/** Checks that are not benchmarks: their figures get a section of their own, not the goals table. */
const SECTIONS = {
  'pi-check': 'Raspberry Pi arm64 emulation check',
  container: 'Container image',
};

function parseArgs(argv) {
  const ins = [];
  let out;
  let merge = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--in' && argv[i + 1]) ins.push(argv[++i]);
    else if (argv[i] === '--out' && argv[i + 1]) out = argv[++i];
    else if (argv[i] === '--merge') merge = true;
    else
      throw new Error(`unknown argument ${argv[i]}; usage: report.mjs [--in DIR]... [--out DIR] [--merge]`);
  }
  const envIn = (process.env.BENCH_REPORT_IN ?? '').split(delimiter).filter(Boolean);
  // Explicit directories are taken from the working directory, the defaults from the repository root.
  return {
    inputs: ins.length
      ? ins.map((d) => resolve(d))
      : envIn.length
        ? envIn.map((d) => resolve(d))
        : DEFAULT_IN,
    output:
      out || process.env.BENCH_REPORT_OUT
        ? resolve(out ?? process.env.BENCH_REPORT_OUT)
        : join(root, 'bench'),
    merge,
  };
}

const round = (x, digits = 3) =>
  typeof x === 'number' && Number.isFinite(x) ? Number(x.toFixed(digits)) : null;

/** A row in the report's shape; ratio is figure/baseline for a side-by-side goal, figure/goal for an absolute one. */
function figure(name, issue, value, unit, o = {}) {
  const hasGoal = o.goal !== undefined && o.goal !== null;
  return {
    name,
    issue: issue ?? null,
    value: value ?? null,
    unit,
    goal: hasGoal ? o.goal : null,
    goal_text: o.goal_text ?? null,
    ratio: round(o.ratio),
    ratio_to: o.ratio_to ?? (hasGoal && o.ratio !== undefined ? 'goal' : null),
    met: hasGoal ? o.met === true && !o.status : null,
    status: o.status ?? null,
    context: o.context ?? null,
  };
}

/** Absolute "lower is better" goal: ratio figure/goal, met when ≤ 1. */
function atMost(name, issue, value, unit, goal, o = {}) {
  const ok = typeof value === 'number' && typeof goal === 'number';
  return figure(name, issue, value, unit, {
    goal,
    goal_text: typeof goal === 'number' ? `≤ ${goal} ${unit}` : undefined,
    ratio: ok && goal !== 0 ? value / goal : undefined,
    met: ok && value <= goal,
    ...o,
  });
}

// --- one normaliser per output format --------------------------------------------------------------

/** controller.json, footprint.json: rows already carry name, issue, figure, goal, ratio and met. */
function fromRows(json, file) {
  const m = json.machine ?? {};
  return {
    source: json.bench ?? basename(file, '.json'),
    date: json.at ?? json.date ?? null,
    load: [m.loadavg_1m_before ?? null, m.loadavg_1m_after ?? null],
    node: m.node ?? null,
    extra: json.database ? `database: ${json.database}` : null,
    figures: json.results.map((r) => {
      const absolute = r.reference === undefined && r.goal !== undefined;
      return figure(r.name, r.issue, r.figure, r.unit, {
        goal: r.goal,
        goal_text: r.goal_text,
        ratio: r.ratio ?? undefined,
        ratio_to: r.reference ?? (absolute && typeof r.ratio === 'number' ? 'goal' : undefined),
        met: r.met,
        status: r.status,
        context: r.context,
      });
    }),
  };
}

/** The fan-in rows of broker/bench/out/bench-results.json: many publishers into one subscriber. */
function fanInFigures(f, mv) {
  const issue = f.issue ?? ISSUE_OF.broker;
  const what = `${f.config.publishers} publishers → 1 subscriber`;
  const [e0, m0] = [f.embedded[0], f.mosquitto[0]];
  const [e1, m1] = [f.embedded[1], f.mosquitto[1]];
  const delivered = (r) => `${r.delivered}/${r.sent} delivered`;
  return [
    figure(`embedded broker fan-in QoS 0 throughput, ${what}`, issue, e0.msgPerSec, 'msg/s', {
      goal: 0.5,
      goal_text: '≥ 0.5 × Mosquitto',
      ratio: f.qos0ThroughputRatio,
      ratio_to: `${mv} ${m0.msgPerSec} msg/s`,
      met: f.qos0ThroughputRatio >= 0.5,
      context: `p50 ${e0.p50Ms} vs ${m0.p50Ms} ms, p99 ${e0.p99Ms} vs ${m0.p99Ms} ms; ${delivered(e0)} vs ${delivered(m0)}; broker CPU ${e0.brokerCpuPct}% vs ${m0.brokerCpuPct}%`,
    }),
    figure(`embedded broker fan-in QoS 0 p99 latency, ${what}`, issue, e0.p99Ms, 'ms', {
      ratio: m0.p99Ms ? e0.p99Ms / m0.p99Ms : undefined,
      ratio_to: `${mv} ${m0.p99Ms} ms`,
      context: `open loop: every publisher sends as fast as the broker reads; p50 ${e0.p50Ms} vs ${m0.p50Ms} ms`,
    }),
    figure(`embedded broker fan-in QoS 1 delivered, ${what}`, issue, e1.delivered, 'messages', {
      goal: e1.sent,
      goal_text: 'delivered = sent',
      ratio: e1.sent ? e1.delivered / e1.sent : undefined,
      ratio_to: `${e1.sent} sent`,
      met: e1.delivered === e1.sent,
      context: `${mv} ${delivered(m1)}; p50 ${e1.p50Ms} vs ${m1.p50Ms} ms, p99 ${e1.p99Ms} vs ${m1.p99Ms} ms`,
    }),
    figure(`embedded broker fan-in QoS 1 throughput, ${what}`, issue, e1.msgPerSec, 'msg/s', {
      ratio: m1.msgPerSec ? e1.msgPerSec / m1.msgPerSec : undefined,
      ratio_to: `${mv} ${m1.msgPerSec} msg/s (${delivered(m1)})`,
      context: `broker CPU ${e1.brokerCpuPct}% vs ${m1.brokerCpuPct}%`,
    }),
  ];
}

/** broker/bench/out/bench-results.json: the embedded broker and Mosquitto, same load, same run. */
function fromBroker(json) {
  const issue = ISSUE_OF.broker;
  const phase = (who, qos, mode) => json[who].phases.find((p) => p.qos === qos && p.mode === mode);
  const mv = json.mosquitto.version ? `Mosquitto ${json.mosquitto.version}` : 'Mosquitto';
  const figures = [];
  // A run of the fan-in workload alone (BENCH_PARTS=fan-in) has no point-to-point phases.
  const pointToPoint = json.embedded.phases.length > 0;
  for (const qos of pointToPoint ? [0, 1] : []) {
    const [e, m] = [phase('embedded', qos, 'throughput'), phase('mosquitto', qos, 'throughput')];
    const goal = qos === 0 ? 0.5 : undefined;
    const ratio =
      qos === 0 && typeof json.qos0ThroughputRatio === 'number'
        ? json.qos0ThroughputRatio
        : e.msgPerSec / m.msgPerSec;
    figures.push(
      figure(
        `embedded broker QoS ${qos} throughput, ${json.config.clients} clients`,
        issue,
        e.msgPerSec,
        'msg/s',
        {
          goal,
          goal_text: goal === undefined ? undefined : `≥ ${goal} × Mosquitto`,
          ratio,
          ratio_to: `${mv} ${m.msgPerSec} msg/s`,
          met: goal === undefined ? undefined : (json.goalMet ?? ratio >= goal),
          context: `broker CPU ${e.brokerCpuPct}% vs ${m.brokerCpuPct}%, load generator CPU ${e.loadgenCpuPct}%; p99 saturated ${e.p99Ms} vs ${m.p99Ms} ms`,
        },
      ),
    );
  }
  for (const qos of pointToPoint ? [0, 1] : []) {
    const [e, m] = [phase('embedded', qos, 'paced'), phase('mosquitto', qos, 'paced')];
    figures.push(
      figure(
        `embedded broker QoS ${qos} p99 latency at ${json.config.paceRate} msg/s`,
        issue,
        e.p99Ms,
        'ms',
        {
          ratio: m.p99Ms ? e.p99Ms / m.p99Ms : undefined,
          ratio_to: `${mv} ${m.p99Ms} ms`,
          context: `p50 ${e.p50Ms} vs ${m.p50Ms} ms; ${e.undelivered} undelivered`,
        },
      ),
    );
  }
  if (json.fanIn) figures.push(...fanInFigures(json.fanIn, mv));
  return {
    source: 'broker',
    date: json.date ?? null,
    load: [json.loadAverage?.before ?? null, json.loadAverage?.after ?? null],
    node: json.node ?? null,
    extra: `embedded ${json.embedded.version} vs ${mv}`,
    figures,
  };
}

/** simulator-cadence.json: 1 Hz tick jitter and ingest → retransmit latency; it has no date, the file's time stands in. */
function fromSimulatorCadence(json, file) {
  const issue = ISSUE_OF['simulator-cadence'];
  const { tick, retransmit: rt } = json;
  const figures = [];
  if (tick) {
    figures.push(
      atMost(
        'simulator 1 Hz tick period jitter p99',
        issue,
        tick.period_jitter_p99_ms,
        'ms',
        tick.goal_p99_ms,
        {
          context: `p50 ${tick.period_jitter_p50_ms} ms, max ${tick.period_jitter_max_ms} ms over ${tick.ticks} ticks; lateness p99 ${tick.lateness_p99_ms} ms; drift ${tick.drift_ms} ms over ${tick.seconds} s`,
        },
      ),
    );
  }
  if (rt) {
    figures.push(
      atMost('simulator ingest → UDP retransmit p99', issue, rt.p99_ms, 'ms', rt.goal_p99_ms, {
        context: `p50 ${rt.p50_ms} ms; ${rt.received}/${rt.sent} received`,
        status: rt.received < rt.sent ? 'incomplete' : undefined,
      }),
    );
  }
  return {
    source: 'simulator-cadence',
    date: statSync(file).mtime.toISOString(),
    load: [null, null],
    node: null,
    extra: 'no date or load in the file: the file time is shown',
    figures,
  };
}

/** dashboard-<date>.json: 5,000 simulators at 1 Hz, 100 WebSocket clients. */
function fromDashboard(json) {
  const issue = ISSUE_OF.dashboard;
  const goals = json.goals ?? {};
  const load = `${json.simulators} simulators, ${json.ws_clients} WS clients`;
  const d = json.dashboard;
  return {
    source: 'dashboard',
    date: json.date ?? null,
    load: [json.machine?.load_average_1m?.before ?? null, json.machine?.load_average_1m?.after ?? null],
    node: json.machine?.node ?? null,
    extra: load,
    figures: [
      atMost(`dashboard CPU, ${load}`, issue, d.cpu_percent_of_one_core, '% of a core', goals.cpu_percent, {
        context: `${d.online_at_end}/${json.simulators} online at the end`,
      }),
      atMost(
        'dashboard fleet_state period p99, first byte',
        issue,
        json.first_byte_period_ms.p99_max_over_processes,
        'ms',
        goals.first_byte_period_p99_ms,
        {
          context: `p50 ${json.first_byte_period_ms.p50_max_over_processes} ms, max ${json.first_byte_period_ms.max} ms; whole message p99 ${json.fleet_state_period_ms.p99_max_over_processes} ms`,
        },
      ),
      ...(json.other_cpu_percent?.broker === undefined
        ? []
        : [
            atMost(
              `embedded broker CPU, ${load} (heartbeat and position each)`,
              24,
              json.other_cpu_percent.broker,
              '% of a core',
              goals.broker_cpu_percent ?? 60,
            ),
          ]),
      figure('dashboard WebSocket clients dropped', issue, json.ws_clients_closed, 'clients', {
        goal: goals.ws_clients_dropped,
        goal_text: `= ${goals.ws_clients_dropped ?? 0}`,
        met: json.ws_clients_closed === (goals.ws_clients_dropped ?? 0),
      }),
      figure(`dashboard RSS max, ${load}`, issue, d.rss_mib_max, 'MiB', {}),
    ],
  };
}

const FORMATS = [
  {
    test: (j) => Array.isArray(j.results) && j.results.every((r) => r && 'name' in r && 'figure' in r),
    read: fromRows,
  },
  { test: (j) => j.embedded?.phases && j.mosquitto?.phases, read: fromBroker },
  { test: (j) => j.tick || j.retransmit, read: fromSimulatorCadence },
  { test: (j) => j.dashboard && j.first_byte_period_ms, read: fromDashboard },
];

function collect(inputs) {
  const runs = new Map();
  const skipped = [];
  const superseded = [];
  for (const dir of inputs) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort()) {
      const file = join(dir, name);
      let run;
      try {
        const json = JSON.parse(readFileSync(file, 'utf8'));
        const format = FORMATS.find((f) => f.test(json));
        if (!format) {
          skipped.push({ file: relative(root, file), reason: 'not a known bench output' });
          continue;
        }
        run = { ...format.read(json, file), file: relative(root, file) };
      } catch (err) {
        skipped.push({ file: relative(root, file), reason: err.message });
        continue;
      }
      // One run per bench: the newest; older outputs (the dashboard keeps one per run) are listed only.
      const prev = runs.get(run.source);
      if (prev && String(prev.date) >= String(run.date)) {
        superseded.push(run.file);
      } else {
        if (prev) superseded.push(prev.file);
        runs.set(run.source, run);
      }
    }
  }
  return { runs: [...runs.values()], skipped, superseded };
}

function machine() {
  let os = `${type()} ${release()} ${osArch()}`;
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
    if (pretty) os = `${pretty}, ${os}`;
  } catch {
    // not Linux
  }
  return {
    cpu_model: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    ram_gib: round(totalmem() / 2 ** 30, 1),
    os,
    node: process.version,
  };
}

// --- Markdown --------------------------------------------------------------------------------------

const cell = (v) =>
  v === null || v === undefined || v === '' ? '—' : String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const table = (header, rows) =>
  [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');

function metText(f) {
  if (f.met === null) return '—';
  if (f.met) return 'met';
  return f.status ? `**not met** (${f.status})` : '**not met**';
}

/** The figures of a check that has a section of its own, as a table with its context. */
function sectionLines(title, figures, run) {
  return [
    `## ${title}`,
    '',
    run ? `Run at ${run.date}${run.node ? ` on Node ${run.node}` : ''}; output \`${run.file}\`.` : '',
    '',
    table(
      ['step', 'value', 'unit', 'notes'],
      figures.map((f) => [f.name, f.value ?? 'n/a', f.unit, f.context]),
    ),
    '',
  ];
}

function markdown(report) {
  const { machine: m, runs } = report;
  const figures = report.figures.filter((f) => !SECTIONS[f.bench]);
  const lines = [
    '# Benchmark report',
    '',
    `Generated by \`npm run bench\` (bench/report.mjs) at ${report.generated_at}; do not edit by hand.`,
    '',
    '## Machine',
    '',
    table(
      ['what', 'value'],
      [
        ['CPU', m.cpu_model],
        ['cores', m.cores],
        ['RAM', `${m.ram_gib} GiB`],
        ['OS', m.os],
        ['Node', m.node],
        [
          'load average, 1 min, during the runs',
          report.load_1m ? `${report.load_1m.min} – ${report.load_1m.max}` : null,
        ],
      ],
    ),
    '',
    `The machine is shared: other work on it competes for the same ${m.cores} cores, and the load average shows how much.`,
    '',
    '## Summary',
    '',
    `${report.summary.met} of ${report.summary.with_goal} goals met.` +
      (report.summary.not_met.length ? ` Not met: ${report.summary.not_met.join('; ')}.` : ''),
    '',
    '## Figures',
    '',
    'ratio: figure ÷ the side-by-side baseline named under "ratio to" (the goal is then a bound on that ratio), or figure ÷ goal for an absolute goal (≤ 1 meets a "≤" goal).',
    '',
    table(
      ['bench', 'figure', 'issue', 'value', 'unit', 'goal', 'ratio', 'ratio to', 'met'],
      figures.map((f) => [
        f.bench,
        f.name,
        f.issue,
        f.value ?? 'n/a',
        f.unit,
        f.goal_text,
        f.ratio,
        f.ratio_to,
        metText(f),
      ]),
    ),
    '',
    '## Runs',
    '',
    table(
      ['bench', 'run at', 'load 1 min before → after', 'Node', 'output', 'notes'],
      runs.map((r) => [
        r.source,
        r.date,
        r.load.some((x) => x !== null) ? `${r.load[0] ?? '?'} → ${r.load[1] ?? '?'}` : null,
        r.node,
        r.file,
        r.extra,
      ]),
    ),
    '',
  ];
  const context = figures.filter((f) => f.context);
  if (context.length) {
    lines.push('## Context', '');
    for (const f of context) lines.push(`- ${f.bench} · ${f.name}: ${f.context}`);
    lines.push('');
  }
  for (const [source, title] of Object.entries(SECTIONS)) {
    const own = report.figures.filter((f) => f.bench === source);
    if (own.length)
      lines.push(
        ...sectionLines(
          title,
          own,
          runs.find((r) => r.source === source),
        ),
      );
  }
  const gaps = [
    ...report.missing.map((s) => `no output from ${s} (\`${EXPECTED[s]}\`)`),
    ...report.skipped.map((s) => `skipped ${s.file}: ${s.reason}`),
    ...PRINT_ONLY.map((p) => `prints its figures without writing JSON, so not in this report: ${p}`),
  ];
  lines.push('## Not in this report', '', ...gaps.map((g) => `- ${g}`), '');
  if (report.superseded.length) lines.push(`Older outputs ignored: ${report.superseded.join(', ')}.`, '');
  return lines.join('\n');
}

/** Runs of the previous report.json in `output` for benches that have no output now. */
function carriedOver(output, runs) {
  const file = join(output, 'report.json');
  if (!existsSync(file)) return [];
  const prev = JSON.parse(readFileSync(file, 'utf8'));
  return (prev.runs ?? [])
    .filter((r) => !runs.some((x) => x.source === r.source))
    .map((r) => ({
      ...r,
      extra: r.extra?.includes('carried over')
        ? r.extra
        : [r.extra, `carried over from the report of ${prev.generated_at}`].filter(Boolean).join('; '),
      figures: prev.figures.filter((f) => f.bench === r.source).map(({ bench: _, ...f }) => f),
    }));
}

function main() {
  const { inputs, output, merge } = parseArgs(process.argv.slice(2));
  const { runs, skipped, superseded } = collect(inputs);
  if (merge) runs.push(...carriedOver(output, runs));
  if (!runs.length) {
    process.stderr.write(`report: no bench output in ${inputs.join(', ')}; run npm run bench\n`);
    process.exit(1);
  }
  const order = Object.keys(EXPECTED);
  runs.sort((a, b) => (order.indexOf(a.source) + 1 || 99) - (order.indexOf(b.source) + 1 || 99));
  const figures = runs.flatMap((r) => r.figures.map((f) => ({ bench: r.source, ...f })));
  const loads = runs.flatMap((r) => r.load).filter((x) => typeof x === 'number');
  const withGoal = figures.filter((f) => f.met !== null);
  const report = {
    generated_at: new Date().toISOString(),
    machine: machine(),
    load_1m: loads.length ? { min: Math.min(...loads), max: Math.max(...loads) } : null,
    summary: {
      with_goal: withGoal.length,
      met: withGoal.filter((f) => f.met).length,
      not_met: withGoal.filter((f) => !f.met).map((f) => `${f.bench} · ${f.name}`),
    },
    runs: runs.map(({ figures: _, ...r }) => r),
    figures,
    missing: order.filter((s) => !runs.some((r) => r.source === s)),
    skipped,
    superseded,
  };
  mkdirSync(output, { recursive: true });
  writeFileSync(join(output, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(output, 'REPORT.md'), markdown(report));
  process.stdout.write(
    `report: ${figures.length} figures from ${runs.length} benches, ${report.summary.met}/${report.summary.with_goal} goals met; ` +
      `${relative(process.cwd(), join(output, 'REPORT.md')) || 'REPORT.md'}\n`,
  );
}

main();
