import { ManualClock } from '@outpost/runtime/clock';
import { asc, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { maintenanceHistory, outbox } from '../../src/db/schema.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { useTestDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const db = useTestDatabase();
let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const events = async (name: string) =>
  (await db().db.select().from(outbox).orderBy(asc(outbox.id))).filter((e) => e.event === name);

/** Moves the manual clock a minute at a time, so the minute checks see every step, and lets them finish. */
async function runFor(ms: number): Promise<void> {
  for (let done = 0; done < ms; done += MIN) {
    t.clock.advance(Math.min(MIN, ms - done));
    await t.svc.reminders.check();
  }
}

describe('maintenance items', () => {
  it('a fresh install has the issue defaults: oil 100 h / 12 months, air 200 h / 24 months, plugs 300 h, battery 6 months', async () => {
    t = await testApp(db());
    const items = (await t.request('GET', '/api/maintenance/items')).body;
    expect(
      items.map((i: Record<string, unknown>) => [i.name, i.interval_hours, i.interval_months, i.status]),
    ).toEqual([
      ['Oil and oil filter', 100, 12, 'ok'],
      ['Air filter', 200, 24, 'ok'],
      ['Spark plugs', 300, null, 'ok'],
      ['Battery check', null, 6, 'ok'],
    ]);
  });

  it('refuses an item with no interval, or a bad one, with 422 and writes nothing', async () => {
    t = await testApp(db());
    const before = (await t.request('GET', '/api/maintenance/items')).body.length;
    const none = await t.request('POST', '/api/maintenance/items', { name: 'Nothing' });
    expect(none.status).toBe(422);
    expect(none.body.detail).toContain('interval_hours');
    expect(
      (await t.request('POST', '/api/maintenance/items', { name: 'x', interval_hours: -2 })).status,
    ).toBe(422);
    expect((await t.request('GET', '/api/maintenance/items')).body.length).toBe(before);
    expect((await t.request('POST', '/api/maintenance/items/999999/done', {})).status).toBe(404);
    expect((await t.request('GET', '/api/maintenance/items/abc')).status).toBe(422);
  });

  it('a 2 h item: one notice at the lead time, one when due after 2 h of runs, due in the state, cleared when done', async () => {
    t = await testApp(db());
    const created = await t.request('POST', '/api/maintenance/items', {
      name: 'Check belts',
      interval_hours: 2,
      lead_hours: 0.5,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    await t.request('POST', '/api/generator/arm');
    await t.request('POST', '/api/generator/start', {});
    await runFor(HOUR);
    await t.request('POST', '/api/generator/stop', {});
    await runFor(HOUR);
    expect((await t.request('GET', `/api/maintenance/items/${id}`)).body.status).toBe('ok');
    await t.request('POST', '/api/generator/start', {});
    await runFor(30 * MIN);
    await waitFor(async () => (await events('maintenance_upcoming')).length === 1);
    expect((await t.request('GET', `/api/maintenance/items/${id}`)).body.status).toBe('upcoming');
    await runFor(30 * MIN);
    await t.request('POST', '/api/generator/stop', {});
    await waitFor(async () => (await events('maintenance_due')).length === 1);
    const due = (await events('maintenance_due'))[0]?.data as Record<string, unknown>;
    expect(due).toMatchObject({ item_id: id, item_name: 'Check belts', due_engine_hours: 2 });
    expect(await events('generator.maintenance.due')).toHaveLength(1);
    // Home Assistant's "Service due" problem sensor reads this field of the state.
    expect((await t.request('GET', '/api/generator/state')).body.maintenance_due).toBe(true);
    await runFor(3 * HOUR);
    expect(await events('maintenance_due')).toHaveLength(1);
    expect(await events('maintenance_upcoming')).toHaveLength(1);

    const done = await t.request('POST', `/api/maintenance/items/${id}/done`, { note: 'new belts' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'ok', last_done_engine_hours: 2, due_engine_hours: 4 });
    expect(done.body.history).toEqual([
      expect.objectContaining({ engine_hours: 2, who: 'admin', note: 'new belts' }),
    ]);
    expect((await t.request('GET', '/api/generator/state')).body.maintenance_due).toBe(false);
    const audit = (await t.request('GET', '/api/audit')).body as { action: string }[];
    expect(audit.map((a) => a.action)).toContain('maintenance.done');
  });

  it('a calendar-month interval follows TZ: due at the same wall-clock time across a DST change', async () => {
    // 2026-02-15 12:00 in New York (EST, UTC-5); a month later it is EDT (UTC-4).
    const clock = new ManualClock(Date.UTC(2026, 1, 15, 17, 0, 0));
    t = await testApp(db(), { clock, config: { timezone: 'America/New_York' } });
    const created = await t.request('POST', '/api/maintenance/items', {
      name: 'Monthly look',
      interval_months: 1,
    });
    expect(created.body.due_at).toBe(Date.UTC(2026, 2, 15, 16, 0, 0) / 1000);
    clock.set(Date.UTC(2026, 2, 15, 15, 59, 0));
    expect((await t.request('GET', `/api/maintenance/items/${created.body.id}`)).body.status).toBe('ok');
    clock.set(Date.UTC(2026, 2, 15, 16, 0, 0));
    expect((await t.request('GET', `/api/maintenance/items/${created.body.id}`)).body.status).toBe('due');
  });

  it('updates and deletes are audited; the history survives a delete', async () => {
    t = await testApp(db());
    const { id } = (
      await t.request('POST', '/api/maintenance/items', { name: 'Coolant', interval_months: 24 })
    ).body;
    const put = await t.request('PUT', `/api/maintenance/items/${id}`, { interval_months: null });
    expect(put.status).toBe(422);
    expect(put.body.detail).toContain('clearing one interval needs the other in the same body');
    expect((await t.request('PUT', `/api/maintenance/items/${id}`, { lead_days: 30 })).body.lead_days).toBe(
      30,
    );
    await t.request('POST', `/api/maintenance/items/${id}/done`);
    expect((await t.request('DELETE', `/api/maintenance/items/${id}`)).status).toBe(200);
    expect((await t.request('GET', `/api/maintenance/items/${id}`)).status).toBe(404);
    const actions = ((await t.request('GET', '/api/audit')).body as { action: string }[]).map(
      (a) => a.action,
    );
    const kept = await db().db.select().from(maintenanceHistory).where(eq(maintenanceHistory.item_id, id));
    expect(kept).toHaveLength(1);
    expect(kept[0]?.item_name).toBe('Coolant');
    expect(actions).toEqual(
      expect.arrayContaining(['maintenance.create', 'maintenance.update', 'maintenance.delete']),
    );
  });
});
