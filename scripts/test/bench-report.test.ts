import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const reportScript = join(root, 'bench', 'report.mjs');
const temps: string[] = [];
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

// One output of each format the benches write, with goals met and missed.
const controller = {
  bench: 'controller',
  at: '2026-01-02T10:00:00.000Z',
  machine: { cpus: 2, loadavg_1m_before: 0.5, loadavg_1m_after: 1.25, node: 'v20.19.0' },
  database: 'PostgreSQL 15.20',
  results: [
    {
      name: 'GET /api/generator/state throughput',
      issue: 3,
      figure: 30000,
      unit: 'req/s',
      reference: 'bare 40000 req/s',
      goal: 0.6,
      goal_text: '≥ 0.6 × bare',
      ratio: 0.75,
      met: true,
    },
    {
      name: 'GET /api/generator/state p99',
      issue: 3,
      figure: 6,
      unit: 'ms',
      reference: 'bare 3 ms',
      ratio: 2,
    },
    {
      name: 'start → relay-desired (relay_on) p99',
      issue: 3,
      figure: 15,
      unit: 'ms',
      goal: 5,
      goal_text: '≤ 5 ms',
      ratio: 3,
      met: false,
    },
  ],
};

const footprint = {
  bench: 'footprint',
  at: '2026-01-02T10:05:00.000Z',
  machine: { loadavg_1m_before: 1.5, loadavg_1m_after: 1.75, node: 'v20.19.0' },
  results: [
    {
      name: 'relay-node idle RSS, PostgreSQL',
      issue: 10,
      figure: 72.4,
      unit: 'MB',
      goal: 60,
      goal_text: '≤ 60 MB',
      ratio: 1.207,
      met: false,
    },
    { name: 'controller idle RSS, embedded defaults', issue: 10, figure: 310.2, unit: 'MB' },
    {
      name: 'stack cold start to all healthy, median of 3',
      issue: 10,
      figure: 4.2,
      unit: 's',
      goal: 10,
      goal_text: '≤ 10 s',
      ratio: 0.42,
      met: true,
    },
  ],
};

const phase = (qos: 0 | 1, mode: 'throughput' | 'paced', msgPerSec: number, p99Ms: number) => ({
  qos,
  mode,
  msgPerSec,
  p50Ms: p99Ms / 2,
  p99Ms,
  brokerCpuPct: 90,
  loadgenCpuPct: 80,
  undelivered: 0,
});
const broker = {
  date: '2026-01-02T09:00:00.000Z',
  node: 'v20.19.0',
  config: { clients: 1000, paceRate: 5000 },
  embedded: {
    version: 'aedes 0.51',
    phases: [
      phase(0, 'throughput', 40000, 30),
      phase(0, 'paced', 5000, 4),
      phase(1, 'throughput', 20000, 60),
      phase(1, 'paced', 5000, 8),
    ],
  },
  mosquitto: {
    version: '2.0.11',
    phases: [
      phase(0, 'throughput', 100000, 10),
      phase(0, 'paced', 5000, 2),
      phase(1, 'throughput', 50000, 20),
      phase(1, 'paced', 5000, 4),
    ],
  },
  loadAverage: { before: 0.25, after: 2.5 },
  qos0ThroughputRatio: 0.4,
  goalMet: false,
};

const cadence = {
  tick: {
    seconds: 600,
    ticks: 600,
    period_jitter_p50_ms: 0.2,
    period_jitter_p99_ms: 1.5,
    period_jitter_max_ms: 3,
    lateness_p99_ms: 1,
    drift_ms: 0.1,
    goal_p99_ms: 2,
  },
  retransmit: { sent: 5000, received: 5000, p50_ms: 0.3, p99_ms: 1.8, goal_p99_ms: 1 },
};

const flight = {
  bench: 'simulator-flight',
  at: '2026-01-02T09:45:00.000Z',
  machine: { loadavg_1m_before: 0.5, loadavg_1m_after: 0.75, node: 'v20.19.0' },
  results: [
    {
      name: 'simulator flight-plan tick with 8 outputs (NMEA, XGPS, GDL 90 over loopback UDP), p99',
      issue: 23,
      figure: 117.1,
      unit: 'µs',
      context: 'mean 45.2 µs',
    },
  ],
};

const dashboard = (date: string, cpu: number) => ({
  date,
  machine: { cpus: 2, node: 'v20.19.0', load_average_1m: { before: 1, after: 2 } },
  simulators: 5000,
  ws_clients: 100,
  dashboard: { cpu_percent_of_one_core: cpu, rss_mib_max: 120.5, online_at_end: 5000 },
  fleet_state_period_ms: { p99_max_over_processes: 1100 },
  first_byte_period_ms: { p50_max_over_processes: 1000, p99_max_over_processes: 1020, max: 1040 },
  ws_clients_closed: 0,
  goals: { cpu_percent: 50, first_byte_period_p99_ms: 1050, ws_clients_dropped: 0 },
});

interface Row {
  bench: string;
  figure: string;
  issue: string;
  value: string;
  unit: string;
  goal: string;
  ratio: string;
  ratioTo: string;
  met: string;
}

/** The rows of the Markdown table under "## Figures", by column name. */
function figureTable(md: string): Row[] {
  const section = md.split('## Figures')[1]?.split('\n## ')[0] ?? '';
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  const cells = (l: string) =>
    l
      .slice(1, -1)
      .split(/(?<!\\) \| /)
      .map((c) => c.trim());
  expect(cells(lines[0] ?? '')).toEqual([
    'bench',
    'figure',
    'issue',
    'value',
    'unit',
    'goal',
    'ratio',
    'ratio to',
    'met',
  ]);
  return lines.slice(2).map((l) => {
    const [bench, figure, issue, value, unit, goal, ratio, ratioTo, met] = cells(l) as string[];
    return { bench, figure, issue, value, unit, goal, ratio, ratioTo, met } as Row;
  });
}

function runReport() {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-bench-report-'));
  temps.push(dir);
  const inDir = join(dir, 'out');
  const extraDir = join(dir, 'broker-out');
  mkdirSync(inDir);
  mkdirSync(extraDir);
  const write = (d: string, name: string, json: unknown) =>
    writeFileSync(join(d, name), JSON.stringify(json, null, 2));
  write(inDir, 'controller.json', controller);
  write(inDir, 'footprint.json', footprint);
  write(extraDir, 'bench-results.json', broker);
  write(inDir, 'simulator-cadence.json', cadence);
  utimesSync(
    join(inDir, 'simulator-cadence.json'),
    new Date('2026-01-02T09:30:00Z'),
    new Date('2026-01-02T09:30:00Z'),
  );
  write(inDir, 'simulator-flight.json', flight);
  write(inDir, 'dashboard-2026-01-01.json', dashboard('2026-01-01T08:00:00.000Z', 10));
  write(inDir, 'dashboard-2026-01-02.json', dashboard('2026-01-02T08:00:00.000Z', 65));
  write(inDir, 'notes.json', { hello: 'world' });
  const outDir = join(dir, 'report');
  const r = spawnSync(process.execPath, [reportScript, '--in', inDir, '--in', extraDir, '--out', outDir], {
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return {
    md: readFileSync(join(outDir, 'REPORT.md'), 'utf8'),
    json: JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')),
  };
}

describe('bench/report.mjs', () => {
  const { md, json } = runReport();
  const rows = figureTable(md);
  const row = (figure: string) => {
    const found = rows.filter((r) => r.figure === figure);
    expect(found, figure).toHaveLength(1);
    return found[0] as Row;
  };

  it('has one table row per figure of every bench format, with value, goal, ratio and verdict', () => {
    expect(rows).toHaveLength(3 + 3 + 4 + 2 + 1 + 4);
    expect(row('GET /api/generator/state throughput')).toEqual({
      bench: 'controller',
      figure: 'GET /api/generator/state throughput',
      issue: '3',
      value: '30000',
      unit: 'req/s',
      goal: '≥ 0.6 × bare',
      ratio: '0.75',
      ratioTo: 'bare 40000 req/s',
      met: 'met',
    });
    // A side-by-side figure without a goal: ratio to its baseline, no verdict.
    expect(row('GET /api/generator/state p99')).toMatchObject({ goal: '—', ratio: '2', met: '—' });
    expect(row('stack cold start to all healthy, median of 3')).toMatchObject({
      bench: 'footprint',
      issue: '10',
      value: '4.2',
      goal: '≤ 10 s',
      ratio: '0.42',
      ratioTo: 'goal',
      met: 'met',
    });
    expect(row('controller idle RSS, embedded defaults')).toMatchObject({
      value: '310.2',
      goal: '—',
      met: '—',
    });
    expect(row('simulator 1 Hz tick period jitter p99')).toMatchObject({
      value: '1.5',
      goal: '≤ 2 ms',
      ratio: '0.75',
      met: 'met',
    });
    expect(row('embedded broker QoS 1 p99 latency at 5000 msg/s')).toMatchObject({
      value: '8',
      ratio: '2',
      ratioTo: 'Mosquitto 2.0.11 4 ms',
      met: '—',
    });
    expect(row('dashboard WebSocket clients dropped')).toMatchObject({ value: '0', goal: '= 0', met: 'met' });
    expect(
      row('simulator flight-plan tick with 8 outputs (NMEA, XGPS, GDL 90 over loopback UDP), p99'),
    ).toMatchObject({
      bench: 'simulator-flight',
      issue: '23',
      value: '117.1',
      unit: 'µs',
      goal: '—',
      met: '—',
    });
  });

  it('shows every missed goal as not met, in the table and the summary', () => {
    const missed = [
      'start → relay-desired (relay_on) p99',
      'relay-node idle RSS, PostgreSQL',
      'embedded broker QoS 0 throughput, 1000 clients',
      'simulator ingest → UDP retransmit p99',
      'dashboard CPU, 5000 simulators, 100 WS clients',
    ];
    for (const name of missed) expect(row(name).met, name).toBe('**not met**');
    expect(row('embedded broker QoS 0 throughput, 1000 clients')).toMatchObject({
      value: '40000',
      goal: '≥ 0.5 × Mosquitto',
      ratio: '0.4',
    });
    expect(row('relay-node idle RSS, PostgreSQL')).toMatchObject({ ratio: '1.207', goal: '≤ 60 MB' });
    const withGoal = rows.filter((r) => r.met !== '—');
    expect(md).toContain(`${withGoal.length - missed.length} of ${withGoal.length} goals met.`);
    for (const name of missed) expect(md).toContain(name);
    expect(json.summary.not_met).toHaveLength(missed.length);
  });

  it('keeps the newest output of a bench and says which files it did not use', () => {
    expect(row('dashboard CPU, 5000 simulators, 100 WS clients').value).toBe('65');
    expect(md).toMatch(/Older outputs ignored: \S*dashboard-2026-01-01\.json/);
    expect(md).toMatch(/skipped \S*notes\.json: not a known bench output/);
  });

  it('names the machine, each run with its date and load, and writes the same figures to report.json', () => {
    expect(md).toMatch(/\| cores \| \d+ \|/);
    expect(md).toContain(`| Node | ${process.version} |`);
    expect(md).toMatch(/\| CPU \| .+ \|/);
    expect(md).toMatch(/\| RAM \| [\d.]+ GiB \|/);
    expect(md).toContain('| controller | 2026-01-02T10:00:00.000Z | 0.5 → 1.25 |');
    expect(md).toContain('| broker | 2026-01-02T09:00:00.000Z | 0.25 → 2.5 |');
    expect(md).toContain('load average, 1 min, during the runs | 0.25 – 2.5 |');
    expect(json.figures).toHaveLength(rows.length);
    expect(json.machine.node).toBe(process.version);
    expect(json.missing).toEqual([]);
  });
});
