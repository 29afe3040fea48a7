// Output cadence and rebroadcast latency, on the real clock:
//  - 1 Hz tick jitter over BENCH_TICK_SECONDS (default 600 = 10 minutes) with the real per-tick work
//    (engine step, every NMEA sentence, the XGPS line): lateness of each tick against its slot, and drift
//  - ingest → UDP retransmit latency in rebroadcaster mode, p50/p99 over BENCH_RETRANSMIT_COUNT datagrams
import { createSocket } from 'node:dgram';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createLogger, ManualClock, systemClock } from '@outpost/runtime';

const { Engine } = await import('../dist/domain/engine.js');
const { startTicker } = await import('../dist/domain/ticker.js');
const { buildSentences } = await import('../dist/domain/nmea/index.js');
const { formatXgps } = await import('../dist/domain/xgps.js');
const { startSimulator } = await import('../dist/app.js');
const { parseSimulatorConfig } = await import('../dist/config.js');

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const results = {};

// 1. Tick cadence.
{
  const seconds = Number(process.env.BENCH_TICK_SECONDS ?? 600);
  const engine = new Engine({ lat: 47.449, lon: -122.309, altitude_ft: 433, speed_kts: 250, heading: 90 });
  engine.setTargets({ altitude_ft: 12000, heading: 270 });
  const lateness = [];
  const at = [];
  let start = 0;
  let lines = 0;
  await new Promise((done) => {
    start = systemClock.now();
    const t = startTicker(systemClock, (now, n) => {
      // When the tick really ran: against its slot on the scheduling clock (ms), and on the monotonic clock.
      lateness.push(Date.now() - (start + n * 1000));
      at.push(performance.now());
      const s = engine.tick(now);
      const fix = {
        lat: s.lat,
        lon: s.lon,
        altitude_ft: s.altitude_ft,
        speed_kts: s.speed_kts,
        track: s.heading,
        timeMs: now,
      };
      lines += buildSentences(fix).length;
      formatXgps('Bench', { ...fix, track: s.heading });
      if (n >= seconds) {
        t.stop();
        done();
      }
    });
  });
  const sorted = [...lateness].sort((a, b) => a - b);
  // Jitter: how far each period strays from 1000 ms on the monotonic clock.
  const jitter = at
    .slice(1)
    .map((t, i) => Math.abs(t - at[i] - 1000))
    .sort((a, b) => a - b);
  // Drift: where the last tick landed against where whole periods from the first one would put it.
  const drift = at.at(-1) - at[0] - (at.length - 1) * 1000;
  results.tick = {
    seconds,
    ticks: lateness.length,
    sentences: lines,
    period_jitter_p50_ms: +pct(jitter, 50).toFixed(3),
    period_jitter_p99_ms: +pct(jitter, 99).toFixed(3),
    period_jitter_max_ms: +jitter.at(-1).toFixed(3),
    lateness_p50_ms: pct(sorted, 50),
    lateness_p99_ms: pct(sorted, 99),
    lateness_max_ms: sorted.at(-1),
    drift_ms: +drift.toFixed(3),
    goal_p99_ms: 2,
  };
  console.log(
    `tick cadence over ${seconds} s: ${lateness.length} ticks; period jitter p50 ${results.tick.period_jitter_p50_ms} ms, ` +
      `p99 ${results.tick.period_jitter_p99_ms} ms (goal ≤ 2 ms), max ${results.tick.period_jitter_max_ms} ms; ` +
      `lateness against the slot p50 ${results.tick.lateness_p50_ms} ms, p99 ${results.tick.lateness_p99_ms} ms ` +
      `(clock resolution 1 ms); drift over the run ${results.tick.drift_ms} ms`,
  );
}

// 2. Ingest → UDP retransmit latency.
{
  const count = Number(process.env.BENCH_RETRANSMIT_COUNT ?? 5000);
  const sink = createSocket('udp4');
  await new Promise((r) => sink.bind(0, '127.0.0.1', r));
  const config = parseSimulatorConfig(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      LISTEN_HOST: '127.0.0.1',
      PASSWORD: 'bench-password',
      LOG_LEVEL: 'silent',
      AUTO_START_MODE: 'rebroadcaster',
      AUTO_START_PROTOCOL: 'udp',
      AUTO_START_LISTEN_PORT: '0',
      AUTO_START_UDP_RETRANSMIT: 'true',
      AUTO_START_UDP_RETRANSMIT_IP: '127.0.0.1',
      AUTO_START_UDP_RETRANSMIT_PORT: String(sink.address().port),
    },
    () => 'x',
  );
  const sim = await startSimulator({
    config,
    logger: createLogger({ service: 'bench', level: 'silent' }),
    clock: new ManualClock(),
  });
  const port = sim.service.status().receiver.port;
  const sender = createSocket('udp4');
  const sentAt = new Map();
  const latencies = [];
  sink.on('message', (msg) => {
    const id = JSON.parse(msg.toString()).speed_kts;
    const t0 = sentAt.get(id);
    if (t0 !== undefined) latencies.push(performance.now() - t0);
  });
  for (let i = 0; i < count; i++) {
    const payload = JSON.stringify({ lat: 47.5, lon: -122.3, alt_ft: 1000, speed_kts: i, heading: 90 });
    sentAt.set(i, performance.now());
    sender.send(payload, port, '127.0.0.1');
    // One message in flight at a time: the latency of a message, not of a queue.
    const deadline = performance.now() + 100;
    while (latencies.length <= i && performance.now() < deadline) await new Promise((r) => setImmediate(r));
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  results.retransmit = {
    sent: count,
    received: latencies.length,
    p50_ms: +pct(sorted, 50).toFixed(3),
    p99_ms: +pct(sorted, 99).toFixed(3),
    goal_p99_ms: 1,
  };
  console.log(
    `ingest → UDP retransmit: ${latencies.length}/${count} received, p50 ${results.retransmit.p50_ms} ms, ` +
      `p99 ${results.retransmit.p99_ms} ms (goal ≤ 1 ms)`,
  );
  sender.close();
  sink.close();
  await sim.close();
}

const out = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bench', 'out');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'simulator-cadence.json'), `${JSON.stringify(results, null, 2)}\n`);
