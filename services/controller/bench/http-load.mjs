// Issue 3, read path: GET /api/generator/state through the whole controller (allowlist, rate limit,
// bearer token, route, validation-free JSON) against a bare node:http server returning the same body,
// same load generator, same connections and duration, same run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { call, freePort, here, JWT_SECRET, nextClientIp, startNode, waitFor } from './stack.mjs';

const num = (name, fallback) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
export const CONNECTIONS = num('BENCH_CONNECTIONS', 50);
export const DURATION_S = num('BENCH_DURATION_S', 10);
export const WARMUP_S = num('BENCH_WARMUP_S', 2);
/** How the bare references check the token: the goal's reference first (see bare-server.mjs). */
export const BARE_AUTH = ['cache', 'jose'];

/** CPU seconds (user + system) used by a process so far. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function load(url, headers, duration) {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration,
    // Each request from another client address (X-Forwarded-For via the trusted loopback proxy), so
    // the per-client 30 requests/s limit answers 200, not 429; the bare server ignores the header.
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': nextClientIp() } }),
      },
    ],
    headers,
  });
}

async function measure(label, url, headers, pid) {
  const c0 = cpuSeconds(pid);
  const t0 = performance.now();
  const r = await load(url, headers, DURATION_S);
  const elapsed = (performance.now() - t0) / 1000;
  const requests = r.requests.total;
  return {
    server: label,
    requests,
    req_per_s: Math.round(r.requests.average),
    latency_p50_ms: r.latency.p50,
    latency_p99_ms: r.latency.p99,
    latency_max_ms: r.latency.max,
    non_2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    server_cpu_pct: Math.round(((cpuSeconds(pid) - c0) / elapsed) * 100),
    // CPU per answered request: steadier than throughput when the load generator shares the cores.
    server_cpu_us_per_request: requests > 0 ? Math.round(((cpuSeconds(pid) - c0) / requests) * 1e6) : null,
  };
}

/** Runs the controller and the bare references; returns their figures (controller first, then BARE_AUTH's order). */
export async function stateThroughput(stack) {
  const path = '/api/generator/state';
  const headers = { authorization: `Bearer ${stack.token}` };
  const sample = await call(stack.base, 'GET', path, { headers });
  if (sample.status !== 200) throw new Error(`GET ${path}: ${sample.status} ${sample.body}`);

  // The bare references, each checking the token its own way (see bare-server.mjs).
  const bares = [];
  for (const auth of BARE_AUTH) {
    const port = await freePort();
    const child = startNode(`bare-server (${auth})`, join(here, 'bare-server.mjs'), {
      BENCH_BARE_PORT: String(port),
      BENCH_BARE_BODY: sample.body,
      BENCH_BARE_JWT_SECRET: JWT_SECRET,
      BENCH_BARE_AUTH: auth,
    });
    await waitFor('the bare server', child, () => child.output.includes('listening'));
    const url = `http://127.0.0.1:${port}${path}`;
    const check = await call(`http://127.0.0.1:${port}`, 'GET', path, { headers });
    if (check.status !== 200 || check.body !== sample.body) {
      throw new Error(`bare server (${auth}) answered ${check.status}, not the controller's body`);
    }
    bares.push({ label: `bare node:http, ${auth}`, url, pid: child.pid, child });
  }

  const targets = [
    { label: 'controller', url: `${stack.base}${path}`, pid: stack.processes.controller.pid },
    ...bares,
  ];
  process.stdout.write(
    `bench: GET ${path}, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s each\n`,
  );
  for (const t of targets) await load(t.url, headers, WARMUP_S);
  const results = [];
  for (const t of targets) results.push(await measure(t.label, t.url, headers, t.pid));
  for (const b of bares) b.child.kill('SIGTERM');
  return {
    body_bytes: Buffer.byteLength(sample.body),
    connections: CONNECTIONS,
    duration_s: DURATION_S,
    results,
  };
}
