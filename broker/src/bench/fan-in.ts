/**
 * Fan-in: many publishers, one subscriber, as the fleet dashboard receives every simulator's telemetry.
 * Each publisher sends its messages as fast as the broker reads them, awaiting only every
 * `awaitEvery`-th publish (open loop: nothing waits for the subscriber). The one subscriber holds
 * `bench/<run>/+/data`. Throughput is what the subscriber received over the time from the first publish
 * to the last delivery; latency is per message, publish to delivery.
 */
import { performance } from 'node:perf_hooks';
import { BenchClient } from './bench-client.js';
import { cpuSeconds } from './processes.js';

export interface FanInConfig {
  publishers: number;
  messagesPerPublisher: number;
  /** Each publisher awaits every n-th publish (write flushed at QoS 0, PUBACK at QoS 1). */
  awaitEvery: number;
  payloadBytes: number;
  /** The run ends this long after the last delivery once every publisher is done. */
  quietMs: number;
}

export interface FanInResult {
  qos: 0 | 1;
  sent: number;
  delivered: number;
  /** Deliveries that came before an earlier message of the same publisher. */
  outOfOrder: number;
  seconds: number;
  msgPerSec: number;
  p50Ms: number;
  p99Ms: number;
  brokerCpuPct: number;
  loadgenCpuPct: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function openAll(port: number, ids: string[]): Promise<BenchClient[]> {
  const out: BenchClient[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    out.push(...(await Promise.all(ids.slice(i, i + 50).map((id) => BenchClient.open(port, id)))));
  }
  return out;
}

async function publishAll(
  client: BenchClient,
  index: number,
  topic: Buffer,
  qos: 0 | 1,
  cfg: FanInConfig,
): Promise<void> {
  // Payload: publisher index, sequence number, send time; the rest is padding.
  const payload = Buffer.alloc(Math.max(16, cfg.payloadBytes));
  payload.writeUInt32LE(index, 0);
  for (let seq = 0; seq < cfg.messagesPerPublisher; seq++) {
    payload.writeUInt32LE(seq, 4);
    payload.writeDoubleLE(performance.now(), 8);
    if ((seq + 1) % cfg.awaitEvery === 0) await client.publishAcked(topic, payload, qos);
    else client.publish(topic, payload, qos);
  }
}

export async function fanIn(
  port: number,
  brokerPid: number,
  qos: 0 | 1,
  cfg: FanInConfig,
): Promise<FanInResult> {
  const run = Math.random().toString(36).slice(2, 8);
  const sent = cfg.publishers * cfg.messagesPerPublisher;
  const latencies = new Float64Array(sent);
  const lastSeq = new Int32Array(cfg.publishers).fill(-1);
  let delivered = 0;
  let outOfOrder = 0;
  let lastDelivery = 0;

  const [subscriber] = await openAll(port, [`fanin-${run}-sub`]);
  if (!subscriber) throw new Error('subscriber did not connect');
  await subscriber.subscribe(`bench/${run}/+/data`, qos);
  subscriber.onMessage = (payload) => {
    const now = performance.now();
    const from = payload.readUInt32LE(0);
    const seq = payload.readUInt32LE(4);
    if (seq < (lastSeq[from] as number)) outOfOrder++;
    else lastSeq[from] = seq;
    if (delivered < sent) latencies[delivered] = now - payload.readDoubleLE(8);
    delivered++;
    lastDelivery = now;
  };
  const publishers = await openAll(
    port,
    Array.from({ length: cfg.publishers }, (_, i) => `fanin-${run}-${i}`),
  );
  const topics = publishers.map((_, i) => Buffer.from(`bench/${run}/${i}/data`));

  const b0 = cpuSeconds(brokerPid);
  const g0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(publishers.map((p, i) => publishAll(p, i, topics[i] as Buffer, qos, cfg)));
  // Open loop: the publishers are done; wait for what the broker still has to deliver.
  let seen = -1;
  while (delivered < sent && delivered !== seen) {
    seen = delivered;
    await sleep(cfg.quietMs);
  }
  const seconds = ((delivered > 0 ? lastDelivery : performance.now()) - t0) / 1000;
  const brokerCpu = cpuSeconds(brokerPid) - b0;
  const gen = process.cpuUsage(g0);
  // CPU is read after the quiet wait, when both sides are idle: it counts against the active time.
  for (const c of [subscriber, ...publishers]) c.close();

  const sorted = latencies.subarray(0, Math.min(delivered, sent)).sort();
  return {
    qos,
    sent,
    delivered,
    outOfOrder,
    seconds: round(seconds, 2),
    msgPerSec: Math.round(delivered / seconds),
    p50Ms: round(percentile(sorted, 50), 1),
    p99Ms: round(percentile(sorted, 99), 1),
    brokerCpuPct: Math.round((brokerCpu / seconds) * 100),
    loadgenCpuPct: Math.round(((gen.user + gen.system) / 1e6 / seconds) * 100),
  };
}

export interface FanInSection {
  /** The issue these figures answer. */
  issue: number;
  config: FanInConfig;
  /** Per QoS, the mean of the runs (sent and delivered summed). */
  embedded: FanInResult[];
  mosquitto: FanInResult[];
  runs: { embedded: FanInResult[]; mosquitto: FanInResult[] };
  qos0ThroughputRatio: number;
  /** QoS 0 throughput ≥ 0.5 × Mosquitto's and every QoS 1 message delivered by the embedded broker. */
  goalMet: boolean;
}

interface Side {
  name: string;
  port: number;
  pid: number;
}

function mean(runs: FanInResult[]): FanInResult {
  const first = runs[0] as FanInResult;
  const avg = (f: (r: FanInResult) => number) => runs.reduce((a, r) => a + f(r), 0) / runs.length;
  const sum = (f: (r: FanInResult) => number) => runs.reduce((a, r) => a + f(r), 0);
  return {
    qos: first.qos,
    sent: sum((r) => r.sent),
    delivered: sum((r) => r.delivered),
    outOfOrder: sum((r) => r.outOfOrder),
    seconds: round(
      sum((r) => r.seconds),
      2,
    ),
    msgPerSec: Math.round(avg((r) => r.msgPerSec)),
    p50Ms: round(
      avg((r) => r.p50Ms),
      1,
    ),
    p99Ms: round(
      avg((r) => r.p99Ms),
      1,
    ),
    brokerCpuPct: Math.round(avg((r) => r.brokerCpuPct)),
    loadgenCpuPct: Math.round(avg((r) => r.loadgenCpuPct)),
  };
}

/** Both brokers, each QoS run A, B, B, A so a change in background load weighs on both alike. */
export async function fanInSideBySide(
  embedded: Side,
  mosquitto: Side,
  cfg: FanInConfig,
  log: (line: string) => void,
): Promise<FanInSection> {
  const runs = { embedded: [] as FanInResult[], mosquitto: [] as FanInResult[] };
  for (const qos of [0, 1] as const) {
    for (const side of [embedded, mosquitto, mosquitto, embedded]) {
      const r = await fanIn(side.port, side.pid, qos, cfg);
      (side === embedded ? runs.embedded : runs.mosquitto).push(r);
      log(
        `  ${side.name.padEnd(16)} fan-in QoS ${qos} ${String(r.msgPerSec).padStart(7)} msg/s` +
          `  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  ${r.delivered}/${r.sent} delivered` +
          `  broker CPU ${r.brokerCpuPct}%  load generator CPU ${r.loadgenCpuPct}%`,
      );
    }
  }
  const perQos = (list: FanInResult[]) => [0, 1].map((q) => mean(list.filter((r) => r.qos === q)));
  const e = perQos(runs.embedded);
  const m = perQos(runs.mosquitto);
  const ratio = round((e[0] as FanInResult).msgPerSec / (m[0] as FanInResult).msgPerSec, 2);
  const e1 = e[1] as FanInResult;
  return {
    issue: 24,
    config: cfg,
    embedded: e,
    mosquitto: m,
    runs,
    qos0ThroughputRatio: ratio,
    goalMet: ratio >= 0.5 && e1.delivered === e1.sent,
  };
}

export function fanInTable(s: FanInSection): string {
  const rows: Array<[string, (r: FanInResult) => string | number, boolean]> = [
    ['throughput (msg/s)', (r) => r.msgPerSec, true],
    ['p50 latency (ms)', (r) => r.p50Ms, false],
    ['p99 latency (ms)', (r) => r.p99Ms, false],
    ['delivered / sent', (r) => `${r.delivered}/${r.sent}`, false],
    ['broker CPU (%)', (r) => r.brokerCpuPct, false],
  ];
  const w = [42, 18, 18, 8];
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(w[0] ?? 0) : c.padStart(w[i] ?? 0))).join('');
  const out = [
    line([`fan-in, ${s.config.publishers} publishers → 1 subscriber`, 'embedded', 'mosquitto', 'ratio']),
    '-'.repeat(w.reduce((a, b) => a + b, 0)),
  ];
  for (const qos of [0, 1] as const) {
    const [e, m] = [s.embedded[qos] as FanInResult, s.mosquitto[qos] as FanInResult];
    for (const [label, get, ratio] of rows) {
      const [a, b] = [get(e), get(m)];
      out.push(
        line([`QoS ${qos} ${label}`, String(a), String(b), ratio ? (Number(a) / Number(b)).toFixed(2) : '']),
      );
    }
  }
  return out.join('\n');
}
