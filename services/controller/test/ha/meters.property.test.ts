import { randomBytes } from 'node:crypto';
import { peerUrl } from '@outpost/runtime/testing';
import fc from 'fast-check';
import mqtt, { type MqttClient } from 'mqtt';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@outpost/runtime/clock';
import type { HeartbeatPublisher } from '../../src/domain/heartbeat-lease.js';
import { StatsPublisher } from '../../src/ha/stats.js';
import { createControllerMetrics } from '../../src/metrics/controller-metrics.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { useTestDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Home Assistant reads any drop of a total_increasing sensor as a meter reset, and Prometheus any
 * drop of a counter as a restart: the published run hours and the run-seconds counter never go
 * down, and fuel used goes down only at a fuel-usage reset. Checked over generated sequences of
 * starts, stops, external runs (running feedback with no command), fuel resets and restarts, on
 * the real database and broker, reading every stats message a client receives and a /metrics
 * scrape taken during each step and after it.
 *
 * METERS_SEED replays a seed; METERS_RUNS sets the number of sequences.
 */
const db = useTestDatabase();
const SEED = Number(process.env.METERS_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.METERS_RUNS ?? 30);
const MIN = 60_000;

type Action =
  | { kind: 'start' }
  | { kind: 'stop' }
  | { kind: 'external_on' }
  | { kind: 'external_off' }
  | { kind: 'fuel_reset' }
  | { kind: 'restart' }
  | { kind: 'wait'; ms: number };

// Weighted so that short sequences still reach a restart or a fuel reset in the middle of a run.
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'start' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'stop' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'external_on' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'external_off' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'fuel_reset' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'restart' as const }) },
  {
    weight: 4,
    // Short waits too: a run shorter than one alive-stamp period is the one a restart could lose.
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      ms: fc.oneof(fc.integer({ min: 1, max: 90_000 }), fc.integer({ min: 1, max: 45 * MIN })),
    }),
  },
);

interface Stats {
  total_run_hours: number;
  fuel_used_gallons: number;
}

let url: string | null = null;
beforeAll(async () => {
  url = await peerUrl('TEST_MQTT_URL');
});

/** One controller instance with its HA stats on the broker and its /metrics. */
async function instance(clock: ManualClock, topic: string, fresh: boolean) {
  const t = await testApp(db(), { clock, reset: fresh });
  createControllerMetrics().register(t.app.metrics.registry, t.svc, {
    lastSent: null,
    clockOffset: null,
  } as unknown as HeartbeatPublisher);
  const client = await mqtt.connectAsync(url as string, { reconnectPeriod: 0 });
  const stats = new StatsPublisher({
    svc: t.svc,
    client,
    topic,
    clock,
    logger: pino({ level: 'silent' }),
  });
  stats.start();
  return { t, client, stats };
}

async function closeInstance(i: Awaited<ReturnType<typeof instance>>) {
  i.stats.stop();
  await i.t.close();
  await i.client.endAsync();
}

/** The counter as a scrape shows it. */
async function runSecondsCounter(t: TestApp): Promise<number> {
  const text = await (await t.app.request('/metrics')).text();
  const line = text.split('\n').find((l) => /^controller_generator_run_seconds_total[ {]/.test(l));
  if (!line) throw new Error('controller_generator_run_seconds_total is not in /metrics');
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function step(t: TestApp, clock: ManualClock, a: Action): Promise<void> {
  switch (a.kind) {
    case 'start':
      await t.request('POST', '/api/generator/arm');
      await t.request('POST', '/api/generator/start', {});
      await t.request('POST', '/api/health/running-feedback', { running: true });
      return;
    case 'stop':
      await t.request('POST', '/api/generator/stop', {});
      await t.request('POST', '/api/health/running-feedback', { running: false });
      return;
    case 'external_on':
      await t.request('POST', '/api/health/running-feedback', { running: true });
      return;
    case 'external_off':
      await t.request('POST', '/api/health/running-feedback', { running: false });
      return;
    case 'fuel_reset':
      await t.request('POST', '/api/generator/fuel-usage/reset');
      return;
    case 'wait':
      clock.advance(a.ms);
      return;
    case 'restart':
      return;
  }
}

describe('HA total_increasing sensors and Prometheus counters never run backwards', () => {
  it('over generated starts, stops, external runs, fuel resets and restarts', async () => {
    if (!url) return;
    console.log(`meters property: seed ${SEED}, ${RUNS} sequences (METERS_SEED=${SEED} replays)`);
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 4, maxLength: 14 }), async (actions) => {
        const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
        const topic = `outpost-test-${randomBytes(4).toString('hex')}/controller/main/stats`;
        const reader: MqttClient = await mqtt.connectAsync(url as string, { reconnectPeriod: 0 });
        /** Every value a client received, with the fuel-reset epoch it arrived in (-1: during a reset). */
        const received: { stats: Stats; epoch: number }[] = [];
        let epoch = 0;
        let resets = 0;
        reader.on('message', (_t, payload) => {
          if (payload.length > 0) received.push({ stats: JSON.parse(payload.toString()), epoch });
        });
        await reader.subscribeAsync(topic, { qos: 1 });
        let inst = await instance(clock, topic, true);
        const counters: number[] = [];
        try {
          await inst.t.request('PUT', '/api/health/settings', {
            running_feedback_source: 'api',
            fail_to_start_policy: 'keep_running',
          });
          for (const a of actions) {
            if (a.kind === 'restart') {
              await closeInstance(inst);
              inst = await instance(clock, topic, false);
            } else {
              const reset = a.kind === 'fuel_reset';
              if (reset) epoch = -1;
              const t = inst.t;
              // A scrape while the step runs sees whatever a user's scrape would in that window.
              const [, during] = await Promise.all([step(t, clock, a), runSecondsCounter(t)]);
              counters.push(during);
              if (reset) epoch = ++resets;
            }
            await inst.stats.publish();
            const n = received.length;
            await waitFor(() => received.length >= n, 2_000);
            await new Promise((r) => setTimeout(r, 20));
            counters.push(await runSecondsCounter(inst.t));
          }
        } finally {
          await closeInstance(inst);
          await reader.endAsync();
        }
        const hours = received.map((r) => r.stats.total_run_hours);
        for (let i = 1; i < hours.length; i++)
          expect(hours[i], `total_run_hours ${hours}`).toBeGreaterThanOrEqual(hours[i - 1] as number);
        for (let i = 1; i < counters.length; i++)
          expect(counters[i], `run seconds counter ${counters}`).toBeGreaterThanOrEqual(
            counters[i - 1] as number,
          );
        // Fuel used: no drop within a reset epoch (values published while a reset runs may be either side).
        const fuel = received.filter((r) => r.epoch !== -1);
        for (let i = 1; i < fuel.length; i++) {
          const [a, b] = [fuel[i - 1], fuel[i]] as [(typeof fuel)[0], (typeof fuel)[0]];
          if (a.epoch === b.epoch)
            expect(
              b.stats.fuel_used_gallons,
              `fuel_used ${fuel.map((f) => f.stats.fuel_used_gallons)}`,
            ).toBeGreaterThanOrEqual(a.stats.fuel_used_gallons);
        }
        // The published hours and the counter are one figure.
        expect(Math.round((hours.at(-1) ?? 0) * 3600)).toBeCloseTo(counters.at(-1) ?? 0, -1);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);
});
