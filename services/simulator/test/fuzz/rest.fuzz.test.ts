/**
 * REST fuzz of every operation in the simulator's OpenAPI document, over real HTTP with a logged-in
 * session cookie (the login limit is off so failed fuzzed logins do not lock the session out).
 *
 * Every answer: status < 500, a 4xx is JSON with a string `detail`, and a 4xx leaves GET /api/status
 * as it was. Accepted requests may act (start, stop, change configuration): only "no 5xx" holds.
 * Generated addresses are loopback only, and a guard refuses (and the test reports) any other.
 *
 * Counts: FUZZ_RUNS requests in total when set (spread evenly over the operations), else 3,000
 * (about 13 s wall on this 2-core machine; 10,000 take about 35 s). FUZZ_SEED replays a seed; a
 * failure prints seed and path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkLimits,
  fuzzRest,
  installNetGuard,
  type NetGuard,
  type Operation,
  operations,
  reportTally,
  type Resolver,
  surfaceRuns,
} from '@outpost/contracts/testing';
import { simulator } from '@outpost/contracts';
import { startTestSim, type TestSim } from '../helpers/sim.js';
import { simulatorLimitTarget, simulatorTarget } from './fuzz-helpers.js';

const RUNS = surfaceRuns(3_000);

let sim: TestSim;
let guard: NetGuard;
let ops: Operation[];
let resolve: Resolver;

beforeAll(async () => {
  guard = installNetGuard();
  sim = await startTestSim({ LOGIN_MAX_FAILURES: '0' });
  ({ ops, resolve } = operations((await sim.api.get('/api/openapi.json')).body));
}, 60_000);

afterAll(async () => {
  await sim?.close();
  guard?.restore();
});

describe('simulator REST API under fuzzed input', () => {
  it('documents the routes the fuzzer covers', () => {
    const keys = ops.map((o) => o.key);
    for (const k of ['POST /api/control', 'POST /api/config/network', 'GET /api/airports/lookup/{icao}']) {
      expect(keys).toContain(k);
    }
  });

  it(`answers ${RUNS} generated requests without a 5xx; rejections change nothing`, {
    timeout: 600_000,
  }, async () => {
    const tally = await fuzzRest(ops, resolve, simulatorTarget(sim), RUNS);
    reportTally('simulator', tally);
    expect(guard.refused).toEqual([]);
  });

  it('refuses oversized bodies with 413 and deep or huge JSON with a 4xx', { timeout: 300_000 }, async () => {
    // The track upload alone takes up to 10 MB; every other body keeps the small limit.
    const upload = ops.filter((o) => o.key === 'POST /api/replay');
    expect(upload.length).toBe(1);
    const rest = ops.filter((o) => o.key !== 'POST /api/replay');
    const checked = await checkLimits(rest, resolve, simulatorLimitTarget(sim));
    expect(checked).toBeGreaterThan(rest.length);
    const target = simulatorLimitTarget(sim);
    const over = 'x'.repeat(simulator.REPLAY_MAX_BYTES + 1);
    for (const declared of [true, false]) {
      const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
      if (declared) headers['content-length'] = String(over.length);
      const req = {
        op: upload[0]!.key,
        method: 'POST',
        path: '/api/replay',
        headers,
        body: over,
        kind: 'over 10 MB',
      };
      expect((await target.send(req)).status, `declared: ${declared}`).toBe(413);
    }
    expect((await sim.api.get('/api/status')).status).toBe(200);
    expect(guard.refused).toEqual([]);
  });

  // A 413 is sent before the body is read; had it said keep-alive, a client reusing the connection
  // (fetch does) would get "other side closed" on its next request instead of an answer.
  it('answers the next requests on a connection that just got a 413', async () => {
    const post = (body: string) =>
      fetch(`${sim.url}/api/position`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: sim.api.cookie ?? '' },
        body,
      });
    expect((await post(`{"a":"${'x'.repeat(1024 * 1024)}"}`)).status).toBe(413);
    for (let i = 0; i < 3; i++) expect((await post('['.repeat(100_000))).status).toBe(413);
  });
});
