/**
 * REST fuzz of every operation in the notifier's OpenAPI document, over real HTTP with a valid
 * bearer token, on an in-memory database and an embedded broker. Every provider origin points at a
 * local HTTP peer; generated SMTP hosts and URLs are loopback and a guard refuses anything else.
 *
 * Every answer: status < 500, a 4xx is JSON with a string `detail`, and a 4xx leaves channels,
 * groups, system notification settings and the delivery history as they were. Accepted requests
 * may act (create a channel, send a test message): only "no 5xx" holds for them.
 *
 * Counts: FUZZ_RUNS requests in total when set (spread evenly over the operations), else 2,000
 * (about 22 s wall on this 2-core machine; 10,000 take about 90 s). FUZZ_SEED replays a seed; a
 * failure prints seed and path.
 */
import { startHttpPeer } from '@outpost/notification-senders/testing';
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
  type RestTarget,
  surfaceRuns,
} from '@outpost/contracts/testing';
import type { RunningNotifier } from '../../src/app.js';
import { embeddedBroker, launchNotifier } from '../helpers/notifier.js';
import { notifierTarget } from './fuzz-helpers.js';

const RUNS = surfaceRuns(2_000);

let broker: Awaited<ReturnType<typeof embeddedBroker>>;
let peer: Awaited<ReturnType<typeof startHttpPeer>>;
let notifier: RunningNotifier;
let guard: NetGuard;
let ops: Operation[];
let resolve: Resolver;
let target: RestTarget & { limits: RestTarget };

beforeAll(async () => {
  guard = installNetGuard();
  broker = await embeddedBroker();
  peer = await startHttpPeer();
  const origins = {
    telegram: peer.url,
    discord: peer.url,
    slack: peer.url,
    pushover: peer.url,
    ntfy: peer.url,
  };
  // A manual clock: retries of failed deliveries wait for it, so nothing runs between two requests.
  notifier = await launchNotifier({
    mqttUrl: broker.url,
    baseUrls: origins,
    clock: new ManualClock(Date.now()),
  });
  ({ ops, resolve } = operations(await (await fetch(`${notifier.url}/api/openapi.json`)).json()));
  target = await notifierTarget(notifier);
}, 60_000);

afterAll(async () => {
  await notifier?.close();
  await peer?.close();
  await broker?.close();
  guard?.restore();
});

describe('notifier REST API under fuzzed input', () => {
  it('documents the routes the fuzzer covers', () => {
    const keys = ops.map((o) => o.key);
    for (const k of [
      'POST /api/notifications/channels',
      'POST /api/notifications/send',
      'PUT /api/system-notifications/{event}',
    ]) {
      expect(keys).toContain(k);
    }
  });

  it(`answers ${RUNS} generated requests without a 5xx; rejections change nothing`, {
    timeout: 600_000,
  }, async () => {
    const tally = await fuzzRest(ops, resolve, target, RUNS);
    reportTally('notifier', tally);
    expect(guard.refused).toEqual([]);
  });

  it('refuses oversized bodies with 413 and deep or huge JSON with a 4xx', { timeout: 300_000 }, async () => {
    const checked = await checkLimits(ops, resolve, target.limits);
    expect(checked).toBeGreaterThan(ops.length);
    expect((await fetch(`${notifier.url}/health`)).status).toBe(200);
    expect(guard.refused).toEqual([]);
  });
});
