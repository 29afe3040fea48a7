// N WebSocket clients of the dashboard's /ws. Records the inter-arrival time of fleet_state messages
// per client; prints a JSON summary on SIGTERM. Messages are not parsed except an occasional sample.
import { connect } from 'node:net';
import WebSocket from 'ws';

const url = process.env.BENCH_WS_URL;
const count = Number(process.env.BENCH_WS_CLIENTS ?? 100);
const warmupUntil = Number(process.env.BENCH_WARMUP_UNTIL ?? 0);
const gaps = [];
// The same, taken when the first bytes of a message reach the client's socket: the dashboard's cadence
// without the client's own work (reassembly, inflating) in it. Messages are a second apart and arrive
// within a fraction of it, so a silence of over 500 ms marks the start of the next one.
const firstByteGaps = [];
// Time from the server's timestamp_ms (same machine clock) to the complete message at the client.
const latencies = [];
let messages = 0;
let closed = 0;
let bytes = 0;
let sample = null;
const clients = [];

for (let i = 0; i < count; i++) {
  // Browsers offer permessage-deflate; BENCH_WS_DEFLATE=false measures uncompressed clients.
  let lastChunk = 0;
  let lastStart = 0;
  const ws = new WebSocket(url, {
    perMessageDeflate: process.env.BENCH_WS_DEFLATE !== 'false',
    skipUTF8Validation: true,
    createConnection: (o) => {
      const socket = connect(o.port, o.host);
      socket.on('data', () => {
        const now = performance.now();
        if (now - lastChunk > 500) {
          if (lastStart && Date.now() >= warmupUntil) firstByteGaps.push(now - lastStart);
          lastStart = now;
        }
        lastChunk = now;
      });
      return socket;
    },
  });
  let last = 0;
  ws.on('message', (data) => {
    const now = performance.now();
    messages++;
    bytes += data.length;
    if (Date.now() >= warmupUntil) {
      if (last) gaps.push(now - last);
      const m = /"timestamp_ms":(\d+)/.exec(data.toString('latin1', 0, 64));
      if (m) latencies.push(Date.now() - Number(m[1]));
    }
    last = now;
    if (i === 0 && messages % 50 === 1) {
      const m = JSON.parse(String(data));
      sample = {
        simulators: m.simulators.length,
        online: m.simulators.filter((s) => s.online).length,
        bytes: data.length,
      };
    }
  });
  ws.on('close', () => closed++);
  ws.on('error', () => {});
  clients.push(ws);
}

process.on('SIGTERM', () => {
  gaps.sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  firstByteGaps.sort((a, b) => a - b);
  const pick = (arr, p) => (arr.length ? arr[Math.min(arr.length - 1, Math.floor(p * arr.length))] : null);
  const q = (p) => pick(gaps, p);
  const latency = { p50: pick(latencies, 0.5), p99: pick(latencies, 0.99), max: latencies.at(-1) ?? null };
  const firstByte = {
    samples: firstByteGaps.length,
    p50: pick(firstByteGaps, 0.5),
    p99: pick(firstByteGaps, 0.99),
    max: firstByteGaps.at(-1) ?? null,
  };
  process.stdout.write(
    `${JSON.stringify({ clients: count, closed, messages, bytes, gaps: gaps.length, p50: q(0.5), p99: q(0.99), max: gaps.at(-1) ?? null, min: gaps[0] ?? null, latency, firstByte, sample })}\n`,
  );
  process.exit(0);
});
