/**
 * REST fuzz of every operation in the relay node's OpenAPI document, over real HTTP with the API key,
 * on mock hardware and a manual clock (so no failsafe fires between two requests).
 *
 * Every answer: status < 500, a 4xx is JSON with a string `detail`, and a 4xx leaves the relay,
 * failsafe, reboot schedule, notification settings and the relay pin as they were. Accepted requests
 * may act (arm, heartbeat, relay on, a recorded reboot): only "no 5xx" holds for them. The one named
 * 5xx: WiFi routes answer 503 "not available" without a system message bus (mock hardware).
 *
 * Counts: FUZZ_RUNS requests in total when set (spread over the operations; GET /api/system reads
 * the machine and gets a tenth of the share), else 2,000 (about 13 s wall on this 2-core machine;
 * 10,000 take about 55 s).
 * FUZZ_SEED replays a seed; a failure prints seed and path.
 */
import { ManualClock } from '@outpost/runtime/clock';
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
import { startTestNode } from '../service-helpers.js';
import { nodeLimitTarget, nodeTarget, type TestNode } from './fuzz-helpers.js';

const RUNS = surfaceRuns(2_000);
const SLOW_AWARE = (op: Operation) => (op.path === '/api/system' ? 1 : 10);

let node: TestNode;
let guard: NetGuard;
let ops: Operation[];
let resolve: Resolver;

beforeAll(async () => {
  guard = installNetGuard();
  node = await startTestNode({ clock: new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0)) });
  ({ ops, resolve } = operations((await node.api('GET', '/api/openapi.json')).body));
}, 60_000);

afterAll(async () => {
  await node?.stop();
  guard?.restore();
});

describe('relay node REST API under fuzzed input', () => {
  it('documents the routes the fuzzer covers', () => {
    const keys = ops.map((o) => o.key);
    for (const k of [
      'POST /api/heartbeat',
      'POST /api/relay/on',
      'POST /api/system/reboot',
      'POST /api/dev/epo',
    ]) {
      expect(keys).toContain(k);
    }
  });

  it(`answers ${RUNS} generated requests without a 5xx; rejections change nothing`, {
    timeout: 600_000,
  }, async () => {
    const tally = await fuzzRest(ops, resolve, nodeTarget(node), RUNS, SLOW_AWARE);
    reportTally('relay node', tally);
    expect(guard.refused).toEqual([]);
  });

  it('refuses oversized bodies with 413 and deep or huge JSON with a 4xx', { timeout: 300_000 }, async () => {
    const checked = await checkLimits(ops, resolve, nodeLimitTarget(node));
    expect(checked).toBeGreaterThan(ops.length);
    expect((await node.api('GET', '/api/relay/state')).status).toBe(200);
    expect(guard.refused).toEqual([]);
  });
});
