// Domain micro-benchmarks, run against the build output (npm run build first).
// Prints receiver parse rate per core (JSON and CYGNUS) and airport search latency over the full table.
import { performance } from 'node:perf_hooks';

const t0 = performance.now();
const airports = await import('../dist/airports/index.js');
const airportLoadMs = performance.now() - t0;
const { parseReceiverLine } = await import('../dist/domain/receiver-parse.js');

/** Deterministic PRNG so every run measures the same inputs. */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(42);
const between = (lo, hi) => lo + (hi - lo) * rand();

function linesPerSecond(lines, minMs = 1500) {
  let ok = 0;
  for (let i = 0; i < 20_000; i++) if (parseReceiverLine(lines[i % lines.length]).ok) ok++; // warm-up
  let n = 0;
  ok = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    for (let i = 0; i < lines.length; i++) if (parseReceiverLine(lines[i]).ok) ok++;
    n += lines.length;
    elapsed = performance.now() - start;
  }
  if (ok !== n) throw new Error(`only ${ok} of ${n} benchmark lines parsed`);
  return (n / elapsed) * 1000;
}

const jsonLines = [];
const cygnusLines = [];
for (let i = 0; i < 2000; i++) {
  const lat = between(-90, 90).toFixed(6);
  const lon = between(-180, 180).toFixed(6);
  const alt = between(0, 45000).toFixed(1);
  const spd = between(0, 600).toFixed(1);
  const hdg = between(0, 360).toFixed(1);
  jsonLines.push(
    `{"lat":${lat},"lon":${lon},"alt_ft":${alt},"speed_kts":${spd},"heading":${hdg},"timestamp":${1_763_700_000 + i}}`,
  );
  cygnusLines.push(`$CYGNUS:lat=${lat}&lon=${lon}&heading=${hdg}&magvar=-6.0&alt=${alt}&airspeed=${spd}\0\0`);
}

const jsonRate = linesPerSecond(jsonLines);
const cygnusRate = linesPerSecond(cygnusLines);

// Airport search: ICAO prefixes (1-4 chars), name fragments, and misses (a miss scans every name).
const all = airports.list();
const queries = [];
for (let i = 0; i < 4000; i++) {
  const a = all[Math.floor(rand() * all.length)];
  const kind = i % 4;
  if (kind === 0) queries.push(a.icao.slice(0, 1 + Math.floor(rand() * 4)).toLowerCase());
  else if (kind === 1 || kind === 2) {
    const len = 3 + Math.floor(rand() * 6);
    const from = Math.floor(rand() * Math.max(1, a.name.length - len));
    queries.push(a.name.slice(from, from + len));
  } else queries.push(`zq${Math.floor(rand() * 1e6)}x`);
}
for (let i = 0; i < 2; i++) for (const q of queries) airports.search(q, 10); // warm-up
const samples = [];
for (let round = 0; round < 5; round++) {
  for (const q of queries) {
    const s = process.hrtime.bigint();
    airports.search(q, 10);
    samples.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
}
samples.sort((a, b) => a - b);
const pct = (p) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))];

const fmt = (n) => Math.round(n).toLocaleString('en-US');
console.log('simulator domain bench (one core)');
console.log(`  receiver JSON parse    ${fmt(jsonRate)} lines/s   (goal >= 100,000)`);
console.log(`  receiver CYGNUS parse  ${fmt(cygnusRate)} lines/s   (goal >= 200,000)`);
console.log(
  `  airport search (${fmt(airports.count)} airports, ${fmt(samples.length)} queries, limit 10): ` +
    `p50 ${pct(50).toFixed(4)} ms, p99 ${pct(99).toFixed(4)} ms, max ${samples.at(-1).toFixed(4)} ms   (goal p99 <= 0.2 ms)`,
);
console.log(`  airport module load    ${airportLoadMs.toFixed(1)} ms`);
