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
export const ROUNDS = Math.round(num('BENCH_HTTP_ROUNDS', 5));
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

/** The middle value (the upper one of an even count). */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Every target's figures over ROUNDS rounds: in each round each target gets DURATION_S / ROUNDS
 * seconds of load, one after the other, the order turning by one every round. A neighbour's burst
 * on the shared machine then falls on all of them alike instead of on whichever ran at that moment.
 * Throughput is all answered requests over all load time; p50 and p99 are the medians of the
 * rounds' figures, max the largest.
 */
async function measureRounds(targets, headers) {
  const acc = targets.map(() => ({ rounds: [], cpu: 0, seconds: 0 }));
  const slice = DURATION_S / ROUNDS;
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < targets.length; k++) {
      const i = (k + round) % targets.length;
      const t = targets[i];
      const c0 = cpuSeconds(t.pid);
      const t0 = performance.now();
      const r = await load(t.url, headers, slice);
      acc[i].seconds += (performance.now() - t0) / 1000;
      acc[i].cpu += cpuSeconds(t.pid) - c0;
      acc[i].rounds.push(r);
    }
  }
  return targets.map((t, i) => {
    const { rounds, cpu, seconds } = acc[i];
    const sum = (f) => rounds.reduce((n, r) => n + f(r), 0);
    const requests = sum((r) => r.requests.total);
    return {
      server: t.label,
      requests,
      req_per_s: Math.round(requests / sum((r) => r.duration)),
      round_req_per_s: rounds.map((r) => Math.round(r.requests.total / r.duration)),
      latency_p50_ms: median(rounds.map((r) => r.latency.p50)),
      latency_p99_ms: median(rounds.map((r) => r.latency.p99)),
      latency_max_ms: Math.max(...rounds.map((r) => r.latency.max)),
      non_2xx: sum((r) => r.non2xx),
      errors: sum((r) => r.errors),
      timeouts: sum((r) => r.timeouts),
      server_cpu_pct: Math.round((cpu / seconds) * 100),
      // CPU per answered request: steadier than throughput when the load generator shares the cores.
      server_cpu_us_per_request: requests > 0 ? Math.round((cpu / requests) * 1e6) : null,
    };
  });
}

/** Headers Node's HTTP server adds to every answer by itself. */
const NODE_OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** The same header names and values, Node's own ones aside. */
function sameHeaders(a, b) {
  const own = (h) =>
    JSON.stringify(
      Object.entries(h)
        .filter(([n]) => !NODE_OWN_HEADERS.has(n) || n === 'content-length')
        .sort(),
    );
  return own(a) === own(b);
}

/** Runs the controller and the bare references; returns their figures (controller first, then BARE_AUTH's order). */
export async function stateThroughput(stack) {
  const path = '/api/generator/state';
  const headers = { authorization: `Bearer ${stack.token}` };
  const sample = await call(stack.base, 'GET', path, { headers });
  if (sample.status !== 200) throw new Error(`GET ${path}: ${sample.status} ${sample.body}`);

  // The bare references answer with the controller's own response: its headers (content-type,
  // cache-control, the security headers …) but those Node's server writes itself, and its body.
  const answerHeaders = Object.fromEntries(
    Object.entries(sample.headers).filter(([name]) => !NODE_OWN_HEADERS.has(name)),
  );
  // The bare references, each checking the token its own way (see bare-server.mjs).
  const bares = [];
  for (const auth of BARE_AUTH) {
    const port = await freePort();
    const child = startNode(`bare-server (${auth})`, join(here, 'bare-server.mjs'), {
      BENCH_BARE_PORT: String(port),
      BENCH_BARE_BODY: sample.body,
      BENCH_BARE_HEADERS: JSON.stringify(answerHeaders),
      BENCH_BARE_JWT_SECRET: JWT_SECRET,
      BENCH_BARE_AUTH: auth,
    }, (process.env.BENCH_BARE_NODE_ARGS ?? '').split(' ').filter(Boolean));
    await waitFor('the bare server', child, () => child.output.includes('listening'));
    const url = `http://127.0.0.1:${port}${path}`;
    const check = await call(`http://127.0.0.1:${port}`, 'GET', path, { headers });
    if (check.status !== 200 || check.body !== sample.body || !sameHeaders(check.headers, sample.headers)) {
      throw new Error(`bare server (${auth}) answered ${check.status}, not the controller's body`);
    }
    bares.push({ label: `bare node:http, ${auth}`, url, pid: child.pid, child });
  }

  const targets = [
    { label: 'controller', url: `${stack.base}${path}`, pid: stack.processes.controller.pid },
    ...bares,
  ];
  process.stdout.write(
    `bench: GET ${path}, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s each in ${ROUNDS} alternating rounds\n`,
  );
  for (const t of targets) await load(t.url, headers, WARMUP_S);
  const results = await measureRounds(targets, headers);
  for (const b of bares) b.child.kill('SIGTERM');
  return {
    body_bytes: Buffer.byteLength(sample.body),
    headers: answerHeaders,
    connections: CONNECTIONS,
    duration_s: DURATION_S,
    rounds: ROUNDS,
    results,
  };
}
