import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/wait.js';

const SECRET = 'health-webhook-secret';
let tdb: TestDatabase;
let database: Database;
let t: TestApp;
let rx: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
  rx = await startReceiver();
}, 60_000);
afterAll(async () => {
  await rx.close();
  await database.close();
  await tdb.cleanup();
});
afterEach(async () => {
  await t?.close();
  rx.requests.length = 0;
});

const received = () =>
  rx.requests.map((r) => JSON.parse(r.body) as { event: string; data: Record<string, unknown> });

describe('generator health events to webhooks', () => {
  it('fail_to_start, the external run and a due service go out signed to a webhook that asked for them', async () => {
    t = await testApp(database);
    await t.request('POST', '/api/webhooks', {
      url: rx.url,
      secret: SECRET,
      events: ['generator.alarm.*', 'generator.started.external', 'generator.maintenance.*'],
    });
    await t.request('PUT', '/api/health/settings', { running_feedback_source: 'api' });
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/generator/start', {});
    t.clock.advance(60_000);
    await waitFor(() => received().some((b) => b.event === 'generator.alarm.fail_to_start'));
    const alarm = rx.requests.find((r) => r.body.includes('generator.alarm.fail_to_start'));
    expect(alarm?.headers['x-outpost-signature']).toBe(
      `sha256=${createHmac('sha256', SECRET)
        .update(alarm?.body ?? '')
        .digest('hex')}`,
    );
    expect(received().find((b) => b.event === 'generator.alarm.fail_to_start')?.data).toMatchObject({
      alarm: 'fail_to_start',
      status: 'alarm',
      relay: 'dropped',
    });

    await t.request('POST', '/api/health/running-feedback', { running: true });
    await waitFor(() => received().some((b) => b.event === 'generator.started.external'));

    await t.request('POST', '/api/maintenance/items', { name: 'Look', interval_hours: 0.01 });
    t.clock.advance(60_000);
    await t.svc.reminders.check();
    await waitFor(() => received().some((b) => b.event === 'generator.maintenance.due'));
    // The other events of the run (started, stopped, lockout) are not what this webhook asked for.
    expect(
      received()
        .map((b) => b.event)
        .filter((e) => !/alarm|external|maintenance/.test(e)),
    ).toEqual([]);
  });
});
