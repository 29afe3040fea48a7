// The flight engine's cost per tick with 8 outputs on, against dist/ (npm run build first): a
// KSFO → KSJC → KOAK flight plan ticked once per simulated second, each tick encoding all 8 NMEA
// sentences (USB serial and the sender), the XGPS line and the 4 GDL 90 frames, and sending them over
// real UDP sockets to 8 loopback targets (NMEA sender, 3 XGPS tablets, 4 GDL 90 tablets).
import { createSocket } from 'node:dgram';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const airports = await import('../dist/airports/index.js');
const { Flight } = await import('../dist/domain/flight/flight.js');
const { buildSentences } = await import('../dist/domain/nmea/index.js');
const { formatXgps } = await import('../dist/domain/xgps.js');
const { gdl90Epoch } = await import('../dist/domain/gdl90/index.js');

const ALL_NMEA = {
  gpgga: true,
  gprmc: true,
  gpgll: true,
  gpgsa: true,
  gpgsv: true,
  gphdt: true,
  gpvtg: true,
  gpzda: true,
};
const route = ['KSFO', 'KSJC', 'KOAK'].map((icao) => {
  const a = airports.lookup(icao);
  return { name: a.icao, icao: a.icao, lat: a.lat, lon: a.lon, elevation_ft: a.elevation_ft };
});
const profile = {
  cruise_altitude_ft: 4500,
  cruise_speed_kts: 160,
  climb_rate_fpm: 1000,
  descent_rate_fpm: 700,
  loop: true,
};

const bind = () =>
  new Promise((resolve) => {
    const s = createSocket('udp4');
    s.on('message', () => {});
    s.bind(0, '127.0.0.1', () => resolve(s));
  });
const sinks = await Promise.all(Array.from({ length: 8 }, bind));
const ports = sinks.map((s) => s.address().port);
const out = await bind();
const [nmeaPort, ...tablets] = ports;
const xgpsPorts = tablets.slice(0, 3);
const gdlPorts = tablets.slice(3);

function runTicks(n) {
  const flight = new Flight(route, profile, 0);
  const samples = new Float64Array(n);
  for (let i = 1; i <= n; i++) {
    const start = performance.now();
    const now = i * 1000;
    const s = flight.tick(now);
    const fix = {
      lat: s.lat,
      lon: s.lon,
      altitude_ft: s.altitude_ft,
      speed_kts: s.speed_kts,
      track: s.heading,
      timeMs: now,
    };
    const sentences = buildSentences(fix, ALL_NMEA);
    for (const line of sentences) out.send(line, nmeaPort, '127.0.0.1');
    const xgps = formatXgps('Bench', fix);
    for (const p of xgpsPorts) out.send(xgps, p, '127.0.0.1');
    for (const frame of gdl90Epoch('Bench', { ...fix, vertical_fpm: s.vertical_fpm }, now)) {
      for (const p of gdlPorts) out.send(frame, p, '127.0.0.1');
    }
    samples[i - 1] = performance.now() - start;
  }
  return samples;
}

const loadBefore = loadavg()[0];
runTicks(2000); // warm-up
await new Promise((r) => setTimeout(r, 200));
const samples = runTicks(20_000).sort();
const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
const pct = (p) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))];
console.log('simulator flight bench (one core, 20,000 ticks of a looping KSFO-KSJC-KOAK plan, 8 outputs)');
console.log(
  `  per tick: mean ${(mean * 1000).toFixed(1)} µs, p50 ${(pct(50) * 1000).toFixed(1)} µs, ` +
    `p99 ${(pct(99) * 1000).toFixed(1)} µs, max ${(samples.at(-1) * 1000).toFixed(1)} µs   (budget: 1 s per tick)`,
);
await new Promise((r) => setTimeout(r, 200));
for (const s of [...sinks, out]) s.close();

// For bench/report.mjs: one row, the tick's p99, with the rest of the distribution as its context.
const us = (ms) => Number((ms * 1000).toFixed(1));
const report = {
  bench: 'simulator-flight',
  at: new Date().toISOString(),
  machine: { node: process.version, loadavg_1m_before: loadBefore, loadavg_1m_after: loadavg()[0] },
  results: [
    {
      name: 'simulator flight-plan tick with 8 outputs (NMEA, XGPS, GDL 90 over loopback UDP), p99',
      issue: 23,
      figure: us(pct(99)),
      unit: 'µs',
      context: `mean ${us(mean)} µs, p50 ${us(pct(50))} µs, max ${us(samples.at(-1))} µs over ${samples.length} ticks; the budget is the 1 s between ticks`,
    },
  ],
};
const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bench', 'out');
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'simulator-flight.json'), `${JSON.stringify(report, null, 2)}\n`);
