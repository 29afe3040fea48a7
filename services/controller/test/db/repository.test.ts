import { ManualClock } from '@outpost/runtime/clock';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { SqlControllerRepository } from '../../src/db/controller-repo.js';
import type { OutboxRow } from '../../src/db/outbox-store.js';
import { auditLog, outbox, runs } from '../../src/db/schema.js';
import { GeneratorController } from '../../src/domain/generator-controller.js';
import { INITIAL_STATE } from '../../src/domain/types.js';
import { FakeBus, FakeRelay, silentLogger, USER } from '../helpers/harness.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';

describe('SQL repository on PostgreSQL', () => {
  let tdb: TestDatabase;
  let database: Database;
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));

  beforeAll(async () => {
    tdb = await testDatabase();
    database = await tdb.open();
  }, 30_000);

  afterAll(async () => {
    await database?.close();
    await tdb?.cleanup();
  });

  const make = (db = database) =>
    new GeneratorController({
      clock,
      repo: new SqlControllerRepository(db, clock),
      relay: new FakeRelay(),
      bus: new FakeBus(),
      logger: silentLogger,
      config: { hoaBootDelaySeconds: 30, bootArmingPolicy: 'preserve_state' },
    });

  it('boots an empty database, records a run with fuel, and writes its events to the outbox', async () => {
    const c = make();
    await c.boot();
    await c.updateSettings(
      { fuel: { fuel_type: 'natural_gas', expected_load: 100, gph_at_50: 1, gph_at_100: 2 } },
      USER,
    );
    await c.arm(USER);
    const started = await c.start({ trigger: 'manual', actor: USER, notes: 'hello' });
    expect(started.run_id).toBeGreaterThan(0);
    clock.advance(45 * 60_000);
    const stopped = await c.stop('manual', USER, 'bye');
    expect(stopped.duration_seconds).toBe(2700);
    c.shutdown();
    const [run] = await database.db.select().from(runs);
    expect(run).toMatchObject({
      trigger_type: 'manual',
      stop_reason: 'manual',
      duration_seconds: 2700,
      fuel_type_at_run: 'natural_gas',
      load_at_run: 100,
      estimated_fuel_used: 1.5,
      notes: 'hello',
      stop_note: 'bye',
    });
    const events = (await database.db.select().from(outbox)).map((e) => e.event);
    expect(events).toEqual(
      expect.arrayContaining(['generator.started.manual', 'generator_started', 'generator.stopped.manual']),
    );
    const audit = (await database.db.select().from(auditLog)).map((a) => `${a.action}:${a.who}:${a.source}`);
    expect(audit).toEqual(
      expect.arrayContaining(['SYSTEM_BOOT_RESET:system:controller', 'generator.start:admin:127.0.0.1']),
    );
  });

  it('keeps state across a reopen and closes the orphaned run at boot', async () => {
    const c = make();
    await c.boot();
    await c.start({ trigger: 'manual', actor: USER });
    c.shutdown();
    await database.close();
    database = await tdb.open();
    const again = make();
    const report = await again.boot();
    again.shutdown();
    expect(report.was_running).toBe(true);
    expect(report.orphan_runs_closed).toHaveLength(1);
    expect(again.view()).toMatchObject({ running: false, armed: true, current_run_id: null });
    const open = await new SqlControllerRepository(database, clock).openRuns();
    expect(open).toEqual([]);
  });

  it('stores when automation was disarmed, and clears it on arming', async () => {
    const c = make();
    await c.boot();
    await c.arm(USER);
    await c.disarm(USER);
    const disarmedAt = clock.now();
    c.shutdown();
    // Advanced once the first controller is gone, so none of its timed writes runs behind the second one.
    clock.advance(3_600_000);
    const repo = new SqlControllerRepository(database, clock);
    expect((await repo.loadState())?.automation_disarmed_at).toBe(disarmedAt);
    const again = make();
    await again.boot();
    await again.arm(USER);
    again.shutdown();
    expect((await repo.loadState())?.automation_disarmed_at).toBeNull();
  });

  it('a batch is all or nothing: a failure inside the statement leaves no run, state or event', async () => {
    const repo = new SqlControllerRepository(database, clock);
    const before = (await database.db.select().from(runs)).length;
    const eventsBefore = (await database.db.select().from(outbox)).length;
    const stateBefore = await repo.loadState();
    const ref = { id: null as number | null };
    await repo.commit({ label: 'reserve', reserveRunId: ref });
    const reserved = (await repo.commit({ label: 'reserve', reserveRunId: ref })).runId;
    expect(reserved).toBeGreaterThan(0);
    ref.id = reserved;
    const run = {
      ref,
      start_time: 1,
      trigger_type: 'manual' as const,
      notes: null,
      fuel_type_at_run: 'lpg' as const,
      load_at_run: 50 as const,
      gph_at_run: 1,
      scheduled_run_id: null,
    };
    await expect(
      repo.commit({
        label: 'broken',
        createRun: run,
        state: { ...(stateBefore ?? INITIAL_STATE), generator_running: true },
        // event is NOT NULL: the outbox row fails inside the statement.
        events: () => [{ event: null as unknown as string, data: { n: 1 } }],
      }),
    ).rejects.toThrow();
    expect((await database.db.select().from(runs)).length).toBe(before);
    expect((await database.db.select().from(outbox)).length).toBe(eventsBefore);
    expect(await repo.loadState()).toEqual(stateBefore);

    // A run without a reserved id is refused before anything is written.
    await expect(
      repo.commit({ label: 'unreserved', createRun: { ...run, ref: { id: null } } }),
    ).rejects.toThrow(/reserved/);

    // The same write, valid: the run carries the reserved id, the state points at it, events carry it.
    const done = await repo.commit({
      label: 'start:run',
      createRun: run,
      state: { ...(stateBefore ?? INITIAL_STATE), generator_running: true },
      events: (runId) => [{ event: 'generator_started', data: { run_id: runId } }],
    });
    expect(done.runId).toBe(reserved);
    const [row] = await database.db
      .select()
      .from(runs)
      .where(eq(runs.id, reserved as number));
    expect(row).toMatchObject({ id: reserved, trigger_type: 'manual', load_at_run: 50 });
    expect((await repo.loadState())?.current_run_id).toBe(reserved);
    const [event] = (await database.db.select().from(outbox)).slice(-1);
    expect(event).toMatchObject({
      event: 'generator_started',
      data: { run_id: reserved },
      published_at: null,
    });
  });

  it('a state write is one statement: state, settings and audit land together or not at all', async () => {
    const repo = new SqlControllerRepository(database, clock);
    const c = make();
    await c.boot();
    c.shutdown();
    const state = await repo.loadState();
    const settingsBefore = await repo.loadSettings();
    if (!state || !settingsBefore) throw new Error('boot wrote no state');
    const auditCount = async () => (await database.db.select().from(auditLog)).length;
    const auditBefore = await auditCount();
    const changed = { ...state, quiet_override_active: !state.quiet_override_active };
    const limits = { ...settingsBefore.limits, max_run_minutes: settingsBefore.limits.max_run_minutes + 7 };

    // who is NOT NULL: the audit row fails, so the state row and settings in the same write stay as they were.
    await expect(
      repo.commit({
        label: 'broken',
        state: changed,
        settings: { ...settingsBefore, limits },
        audit: [{ action: 'x', actor: { who: null as unknown as string, from: 'test' } }],
      }),
    ).rejects.toThrow();
    expect(await repo.loadState()).toEqual(state);
    expect(await repo.loadSettings()).toEqual(settingsBefore);
    expect(await auditCount()).toBe(auditBefore);

    await repo.commit({
      label: 'fast',
      state: changed,
      settings: { ...settingsBefore, limits },
      audit: [
        { action: 'one', actor: USER },
        { action: 'two', actor: USER, details: { n: 2 } },
      ],
      flushWithNext: true,
    });
    expect(await repo.loadState()).toEqual(changed);
    expect((await repo.loadSettings())?.limits.max_run_minutes).toBe(limits.max_run_minutes);
    const rows = await database.db.select().from(auditLog);
    expect(rows.slice(-2).map((r) => [r.action, r.who, r.details])).toEqual([
      ['one', USER.who, null],
      ['two', USER.who, { n: 2 }],
    ]);
    // The unflushed commit's setting ends with its own transaction.
    const shown = (await database.db.execute(sql`show synchronous_commit`)) as unknown as {
      rows: { synchronous_commit: string }[];
    };
    expect(shown.rows[0]?.synchronous_commit).toBe('on');
  });

  it("reports each commit's outbox rows with the ids the database gave them, in order", async () => {
    const seen: OutboxRow[] = [];
    const repo = new SqlControllerRepository(database, clock, (rows) => seen.push(...rows));
    await repo.commit({
      label: 'events',
      events: () => [
        { event: 'first', data: { n: 1 } },
        { event: 'second', data: { n: 2 } },
        { event: 'third', data: { n: 3 } },
      ],
    });
    await repo.commit({ label: 'no events', audit: [{ action: 'x', actor: USER }] });
    const stored = (await database.db.select().from(outbox)).slice(-3);
    expect(seen.map((r) => [r.id, r.event_id, r.event, r.data])).toEqual(
      stored.map((r) => [r.id, r.event_id, r.event, r.data]),
    );
    expect(seen.map((r) => r.event)).toEqual(['first', 'second', 'third']);
  });
});
