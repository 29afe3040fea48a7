/**
 * `npm run bench`: the embedded broker against Mosquitto, same load generator, same machine, same run.
 * Point to point: 1,000 clients on loopback; client i subscribes to bench/<run>/i and publishes to
 * client i+1's topic, so every message crosses the broker once. Per QoS: a saturating phase (each
 * client keeps a fixed window of messages in flight) for throughput, and a paced phase at a fixed total
 * rate for latency with headroom. Fan-in: 100 publishers into one subscriber (see fan-in.ts). Each
 * measurement runs twice per broker, interleaved. Prints tables and writes bench/out/bench-results.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { BenchClient } from './bench-client.js';
import { type FanInConfig, type FanInSection, fanInSideBySide, fanInTable } from './fan-in.js';
import { type BrokerUnderTest, cpuSeconds, startEmbedded, startMosquitto } from './processes.js';

const env = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
const CLIENTS = env('BENCH_CLIENTS', 1000);
const WINDOW = env('BENCH_WINDOW', 10);
const RATE = env('BENCH_RATE', 5_000);
const SECONDS = env('BENCH_SECONDS', 2);
const WARMUP_MS = 1000;
const PAYLOAD_BYTES = 64;
const FAN_IN: FanInConfig = {
  publishers: env('BENCH_FANIN_PUBLISHERS', 100),
  messagesPerPublisher: env('BENCH_FANIN_MESSAGES', 2000),
  awaitEvery: env('BENCH_FANIN_AWAIT_EVERY', 100),
  payloadBytes: PAYLOAD_BYTES,
  quietMs: 3000,
};
/** Which workloads run: `point-to-point`, `fan-in`, or both (the default), comma-separated. */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'point-to-point,fan-in').split(',').map((p) => p.trim()));

type Mode = 'throughput' | 'paced';

export interface PhaseResult {
  qos: 0 | 1;
  mode: Mode;
  seconds: number;
  messages: number;
  msgPerSec: number;
  p50Ms: number;
  p99Ms: number;
  brokerCpuPct: number;
  loadgenCpuPct: number;
  /** Messages still undelivered 3 s after publishing stopped. */
  undelivered: number;
}

interface Fleet {
  clients: BenchClient[];
  topics: Buffer[];
  onReceive: (sender: number, latencyMs: number) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function connectFleet(port: number, run: string): Promise<Fleet> {
  const fleet: Fleet = { clients: [], topics: [], onReceive: () => {} };
  const batch = 50;
  for (let start = 0; start < CLIENTS; start += batch) {
    const ids = Array.from({ length: Math.min(batch, CLIENTS - start) }, (_, k) => start + k);
    const opened = await Promise.all(ids.map((i) => BenchClient.open(port, `bench-${run}-${i}`)));
    await Promise.all(opened.map((c, k) => c.subscribe(`bench/${run}/${ids[k]}`, 1)));
    fleet.clients.push(...opened);
  }
  for (let i = 0; i < CLIENTS; i++) fleet.topics.push(Buffer.from(`bench/${run}/${(i + 1) % CLIENTS}`));
  for (const c of fleet.clients) {
    c.onMessage = (payload) => {
      fleet.onReceive(payload.readUInt32LE(0), performance.now() - payload.readDoubleLE(4));
    };
  }
  return fleet;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function phase(fleet: Fleet, broker: BrokerUnderTest, qos: 0 | 1, mode: Mode): Promise<PhaseResult> {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  const inflight = new Int32Array(CLIENTS);
  const latencies: number[] = [];
  let running = true;
  let measuring = false;
  const send = (i: number) => {
    payload.writeUInt32LE(i, 0);
    payload.writeDoubleLE(performance.now(), 4);
    fleet.clients[i]?.publish(fleet.topics[i] as Buffer, payload, qos);
    inflight[i] = (inflight[i] as number) + 1;
  };
  fleet.onReceive = (sender, latency) => {
    inflight[sender] = (inflight[sender] as number) - 1;
    if (measuring) latencies.push(latency);
    // Saturating mode: every delivery frees a slot in the sender's window.
    if (running && mode === 'throughput') send(sender);
  };

  let pacer: NodeJS.Timeout | undefined;
  if (mode === 'throughput') {
    for (let w = 0; w < WINDOW; w++) for (let i = 0; i < CLIENTS; i++) send(i);
  } else {
    const began = performance.now();
    let sent = 0;
    let next = 0;
    pacer = setInterval(() => {
      const due = Math.floor(((performance.now() - began) / 1000) * RATE) - sent;
      for (let k = 0; k < due; k++) {
        send(next);
        next = (next + 1) % CLIENTS;
      }
      sent += Math.max(0, due);
    }, 5);
  }

  await sleep(WARMUP_MS);
  const t0 = performance.now();
  const b0 = cpuSeconds(broker.pid);
  const g0 = process.cpuUsage();
  measuring = true;
  await sleep(SECONDS * 1000);
  measuring = false;
  const seconds = (performance.now() - t0) / 1000;
  const brokerCpu = cpuSeconds(broker.pid) - b0;
  const gen = process.cpuUsage(g0);
  running = false;
  clearInterval(pacer);

  const drainUntil = performance.now() + 3000;
  const outstanding = () => inflight.reduce((a, b) => a + b, 0);
  while (outstanding() > 0 && performance.now() < drainUntil) await sleep(20);

  const sorted = Float64Array.from(latencies).sort();
  return {
    qos,
    mode,
    seconds: round(seconds, 2),
    messages: latencies.length,
    msgPerSec: Math.round(latencies.length / seconds),
    p50Ms: round(percentile(sorted, 50), 2),
    p99Ms: round(percentile(sorted, 99), 2),
    brokerCpuPct: Math.round((brokerCpu / seconds) * 100),
    loadgenCpuPct: Math.round(((gen.user + gen.system) / 1e6 / seconds) * 100),
    undelivered: outstanding(),
  };
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

interface BrokerResult {
  broker: string;
  version: string;
  connectSeconds: number;
  phases: PhaseResult[];
  /** Every individual run, before averaging. */
  runs: PhaseResult[];
}

interface Contender {
  broker: BrokerUnderTest;
  fleet: Fleet;
  connectSeconds: number;
  runs: PhaseResult[];
}

async function prepare(broker: BrokerUnderTest): Promise<Contender> {
  const run = Math.random().toString(36).slice(2, 8);
  const c0 = performance.now();
  const fleet = await connectFleet(broker.port, run);
  const connectSeconds = round((performance.now() - c0) / 1000, 2);
  process.stderr.write(
    `  ${broker.name}: ${CLIENTS} clients connected and subscribed in ${connectSeconds} s\n`,
  );
  return { broker, fleet, connectSeconds, runs: [] };
}

function average(runs: PhaseResult[]): PhaseResult {
  const first = runs[0] as PhaseResult;
  const mean = (f: (r: PhaseResult) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
  return {
    qos: first.qos,
    mode: first.mode,
    seconds: round(mean((r) => r.seconds) * runs.length, 2),
    messages: runs.reduce((a, r) => a + r.messages, 0),
    msgPerSec: Math.round(mean((r) => r.msgPerSec)),
    p50Ms: round(
      mean((r) => r.p50Ms),
      2,
    ),
    p99Ms: round(
      mean((r) => r.p99Ms),
      2,
    ),
    brokerCpuPct: Math.round(mean((r) => r.brokerCpuPct)),
    loadgenCpuPct: Math.round(mean((r) => r.loadgenCpuPct)),
    undelivered: runs.reduce((a, r) => a + r.undelivered, 0),
  };
}

function summarize(c: Contender): BrokerResult {
  const phases: PhaseResult[] = [];
  for (const qos of [0, 1] as const) {
    for (const mode of ['throughput', 'paced'] as const) {
      const runs = c.runs.filter((r) => r.qos === qos && r.mode === mode);
      if (runs.length) phases.push(average(runs));
    }
  }
  return {
    broker: c.broker.name,
    version: c.broker.version,
    connectSeconds: c.connectSeconds,
    phases,
    runs: c.runs,
  };
}

function table(embedded: BrokerResult, mosquitto: BrokerResult): string {
  const get = (r: BrokerResult, qos: 0 | 1, mode: Mode) =>
    r.phases.find((p) => p.qos === qos && p.mode === mode) as PhaseResult;
  const rows: Array<[string, number, number, boolean]> = [];
  for (const qos of [0, 1] as const) {
    const [et, mt] = [get(embedded, qos, 'throughput'), get(mosquitto, qos, 'throughput')];
    const [ep, mp] = [get(embedded, qos, 'paced'), get(mosquitto, qos, 'paced')];
    rows.push([`QoS ${qos} throughput (msg/s)`, et.msgPerSec, mt.msgPerSec, true]);
    rows.push([`QoS ${qos} p99 latency, saturated (ms)`, et.p99Ms, mt.p99Ms, false]);
    rows.push([`QoS ${qos} p99 latency at ${RATE} msg/s (ms)`, ep.p99Ms, mp.p99Ms, false]);
    rows.push([`QoS ${qos} broker CPU, saturated (%)`, et.brokerCpuPct, mt.brokerCpuPct, false]);
  }
  rows.push([
    'connect + subscribe 1 client each (s)'.replace('1 client', `${CLIENTS} clients`),
    embedded.connectSeconds,
    mosquitto.connectSeconds,
    false,
  ]);
  const w = [42, 18, 18, 8];
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(w[0] ?? 0) : c.padStart(w[i] ?? 0))).join('');
  const out = [
    line(['', 'embedded', 'mosquitto', 'ratio']),
    line(['', embedded.version, mosquitto.version, '']),
    '-'.repeat(w.reduce((a, b) => a + b, 0)),
  ];
  for (const [label, e, m, ratio] of rows) {
    out.push(line([label, String(e), String(m), ratio ? (e / m).toFixed(2) : '']));
  }
  return out.join('\n');
}

async function pointToPoint(started0: BrokerUnderTest[]): Promise<[BrokerResult, BrokerResult]> {
  const [a, b] = [
    await prepare(started0[0] as BrokerUnderTest),
    await prepare(started0[1] as BrokerUnderTest),
  ];
  for (const qos of [0, 1] as const) {
    for (const mode of ['throughput', 'paced'] as const) {
      for (const c of [a, b, b, a]) {
        const r = await phase(c.fleet, c.broker, qos, mode);
        c.runs.push(r);
        process.stderr.write(
          `  ${c.broker.name.padEnd(16)} QoS ${qos} ${mode.padEnd(10)} ${String(r.msgPerSec).padStart(7)} msg/s` +
            `  p99 ${r.p99Ms} ms  broker CPU ${r.brokerCpuPct}%  load generator CPU ${r.loadgenCpuPct}%\n`,
        );
      }
    }
  }
  for (const c of [a, b]) for (const client of c.fleet.clients) client.close();
  return [summarize(a), summarize(b)];
}

const untested = (b: BrokerUnderTest): BrokerResult => ({
  broker: b.name,
  version: b.version,
  connectSeconds: 0,
  phases: [],
  runs: [],
});

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = round(loadavg()[0] ?? 0, 2);
  process.stderr.write(
    `MQTT broker benchmark: ${[...PARTS].join(' and ')} on 127.0.0.1, ${PAYLOAD_BYTES}-byte payloads, ` +
      `${cpus().length} CPUs; point to point: ${CLIENTS} clients, window ${WINDOW}, ${SECONDS} s per phase; ` +
      `fan-in: ${FAN_IN.publishers} publishers x ${FAN_IN.messagesPerPublisher} messages, ` +
      `awaiting every ${FAN_IN.awaitEvery}th\n`,
  );
  // Both brokers stay up with their own client fleets; each phase runs A, B, B, A so that a change
  // in background load during the run weighs on both alike.
  const started0 = [await startEmbedded(), await startMosquitto()];
  const [eb, mb] = started0 as [BrokerUnderTest, BrokerUnderTest];
  let embedded = untested(eb);
  let mosquitto = untested(mb);
  let fanIn: FanInSection | null = null;
  try {
    if (PARTS.has('point-to-point')) [embedded, mosquitto] = await pointToPoint(started0);
    if (PARTS.has('fan-in')) {
      fanIn = await fanInSideBySide(
        { name: eb.name, port: eb.port, pid: eb.pid },
        { name: mb.name, port: mb.port, pid: mb.pid },
        FAN_IN,
        (line) => process.stderr.write(`${line}\n`),
      );
    }
  } finally {
    await Promise.all(started0.map((x) => x.stop()));
  }

  const e0 = embedded.phases.find((p) => p.qos === 0 && p.mode === 'throughput');
  const m0 = mosquitto.phases.find((p) => p.qos === 0 && p.mode === 'throughput');
  const ratio = e0 && m0 ? round(e0.msgPerSec / m0.msgPerSec, 2) : null;

  if (ratio !== null) {
    process.stdout.write(`\n${table(embedded, mosquitto)}\n\n`);
    process.stdout.write(
      `Goal: embedded QoS 0 throughput >= 0.5 x Mosquitto's: ${ratio >= 0.5 ? 'met' : 'NOT met'} (ratio ${ratio}).\n`,
    );
  }
  if (fanIn) {
    const e1 = fanIn.embedded[1] as { delivered: number; sent: number };
    process.stdout.write(`\n${fanInTable(fanIn)}\n\n`);
    process.stdout.write(
      `Goal: fan-in QoS 0 throughput >= 0.5 x Mosquitto's: ${fanIn.qos0ThroughputRatio >= 0.5 ? 'met' : 'NOT met'} ` +
        `(ratio ${fanIn.qos0ThroughputRatio}); QoS 1 delivered = sent: ${e1.delivered === e1.sent ? 'met' : 'NOT met'} ` +
        `(${e1.delivered}/${e1.sent}).\n`,
    );
  }
  const loadAfter = round(loadavg()[0] ?? 0, 2);
  process.stdout.write(
    `Machine load average ${loadBefore} before, ${loadAfter} after, on ${cpus().length} CPUs: ` +
      'other work on the machine competes with both brokers and the load generator.\n' +
      'Both brokers are driven by the same single-process load generator on the same machine; where the\n' +
      "generator's CPU is near 100% it, not the broker, is the ceiling (see loadgenCpuPct in the JSON).\n",
  );

  const out = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'out');
  mkdirSync(out, { recursive: true });
  const file = join(out, 'bench-results.json');
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    config: {
      clients: CLIENTS,
      window: WINDOW,
      paceRate: RATE,
      secondsPerPhase: SECONDS,
      payloadBytes: PAYLOAD_BYTES,
    },
    embedded,
    mosquitto,
    loadAverage: { before: loadBefore, after: loadAfter },
    qos0ThroughputRatio: ratio,
    goalMet: ratio === null ? null : ratio >= 0.5,
    fanIn,
    totalSeconds: round((performance.now() - started) / 1000, 1),
  };
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`Results written to ${file} (${result.totalSeconds} s in total).\n`);
}

main().catch((err: Error) => {
  process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
