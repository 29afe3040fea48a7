import { afterEach, describe, expect, it } from 'vitest';
import type { HeartbeatPublisher } from '../../src/domain/heartbeat-lease.js';
import { controllerStats } from '../../src/ha/stats.js';
import { createControllerMetrics } from '../../src/metrics/controller-metrics.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { useTestDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

const db = useTestDatabase();
let t: TestApp;
afterEach(async () => {
  await t?.close();
});

async function metrics(): Promise<string> {
  const res = await t.app.request('/metrics');
  return res.text();
}

/** The value of one series, found by its name and any label it must carry. */
async function sample(name: string, label = ''): Promise<number | null> {
  for (const line of (await metrics()).split('\n')) {
    const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name && (m[2] ?? '').includes(label)) return Number(m[3]);
  }
  return null;
}

describe('engine hours and health alarms in /metrics and the HA stats', () => {
  it('the meter, the feedback and the standing alarm are scraped as they are', async () => {
    t = await testApp(db());
    const heartbeat = { lastSent: null } as unknown as HeartbeatPublisher;
    createControllerMetrics().register(t.app.metrics.registry, t.svc, heartbeat);
    await t.request('PUT', '/api/health/hour-meter', { hours: 12.5 });
    expect(await sample('controller_engine_run_seconds')).toBe(12.5 * 3600);
    expect(await sample('controller_engine_hours')).toBeNull();
    await t.request('PUT', '/api/health/settings', { running_feedback_source: 'api' });
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/generator/start', {});
    await t.request('POST', '/api/health/running-feedback', { running: true });
    t.clock.advance(30 * 60_000);
    expect(await sample('controller_engine_run_seconds')).toBe(13 * 3600);
    expect(await sample('controller_running_feedback')).toBe(1);
    expect(await sample('controller_health_alarm', 'alarm="unexpected_stop"')).toBe(0);
    await t.request('POST', '/api/health/running-feedback', { running: false });
    await waitFor(async () => (await sample('controller_health_alarm', 'alarm="unexpected_stop"')) === 1);
    expect((await controllerStats(t.svc)).engine_hours).toBe(13);
  });
});
