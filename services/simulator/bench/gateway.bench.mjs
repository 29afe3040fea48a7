// End-to-end service benchmarks against dist/ (build first), all on 127.0.0.1:
//  - receiver ingest over TCP (newline-delimited JSON) and UDP (one datagram each), lines accepted per second
//  - GET /api/status latency with a session cookie (p50/p99)
//  - RSS after the runs
import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createLogger, ManualClock } from '@outpost/runtime';

const { startSimulator } = await import('../dist/app.js');
const { parseSimulatorConfig } = await import('../dist/config.js');

const logger = createLogger({ service: 'simulator-bench', level: 'silent' });
const line = (i) =>
  JSON.stringify({ lat: 40 + (i % 1000) / 1e4, lon: -105, alt_ft: 5000, speed_kts: 120, heading: 90 });

async function start(protocol) {
  const config = parseSimulatorConfig(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      LISTEN_HOST: '127.0.0.1',
      PASSWORD: 'bench-password',
      LOG_LEVEL: 'silent',
      AUTO_START_MODE: 'receiver',
      AUTO_START_PROTOCOL: protocol,
      AUTO_START_LISTEN_PORT: '0',
    },
    () => 'x',
  );
  return startSimulator({ config, logger, clock: new ManualClock() });
}

async function waitAccepted(sim, n, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (sim.service.status().receiver.messages_accepted < n && Date.now() < deadline) {
    await new Promise((r) => setImmediate(r));
  }
  return sim.service.status().receiver.messages_accepted;
}

// TCP: 200,000 lines in one stream.
{
  const sim = await start('tcp');
  const port = sim.service.status().receiver.port;
  const N = 200_000;
  const payload = Buffer.from(Array.from({ length: N }, (_, i) => line(i)).join('\n') + '\n');
  const c = createConnection({ host: '127.0.0.1', port });
  await new Promise((r) => c.once('connect', r));
  const t0 = performance.now();
  c.write(payload);
  const got = await waitAccepted(sim, N);
  const s = (performance.now() - t0) / 1000;
  console.log(
    `receiver TCP: ${got}/${N} lines in ${s.toFixed(2)} s = ${Math.round(got / s).toLocaleString()} lines/s`,
  );
  c.destroy();
  await sim.close();
}

// UDP: 50,000 datagrams from a separate process (so sender and receiver do not share one event loop),
// paced in bursts of 50 per millisecond tick.
{
  const sim = await start('udp');
  const port = sim.service.status().receiver.port;
  const N = 50_000;
  const sender = `
    const s = require('node:dgram').createSocket('udp4');
    const line = ${line.toString()};
    let i = 0;
    const burst = () => {
      for (let k = 0; k < 50 && i < ${N}; k++, i++) s.send(line(i), ${port}, '127.0.0.1');
      if (i < ${N}) setTimeout(burst, 1); else setTimeout(() => s.close(), 200);
    };
    burst();`;
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-e', sender], { stdio: 'inherit' });
  await new Promise((r) => child.once('exit', r));
  const got = await waitAccepted(sim, N, 2000);
  const s = (performance.now() - t0) / 1000;
  console.log(
    `receiver UDP: ${got}/${N} datagrams accepted (${((100 * got) / N).toFixed(1)} %) in ${s.toFixed(2)} s = ${Math.round(got / s).toLocaleString()} /s`,
  );

  // REST latency on the same process.
  const login = await fetch(`${sim.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'bench-password' }),
  });
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const times = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    const r = await fetch(`${sim.url}/api/status`, { headers: { cookie } });
    await r.arrayBuffer();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const pct = (p) => times[Math.floor((times.length - 1) * p)].toFixed(2);
  console.log(`GET /api/status: p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms over ${times.length} requests`);
  console.log(`RSS after runs: ${Math.round(process.memoryUsage().rss / 1048576)} MB`);
  await sim.close();
}
