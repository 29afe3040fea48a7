import { ManualClock } from '@outpost/runtime/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { SqlControllerRepository } from '../../src/db/controller-repo.js';
import { auditLog, outbox, runs } from '../../src/db/schema.js';
import { GeneratorController } from '../../src/domain/generator-controller.js';
import { FakeBus, FakeRelay, silentLogger, USER } from '../helpers/harness.js';
import { pgliteTestDatabase, postgresTestDatabase, type TestDatabase } from '../helpers/databases.js';

const backends: { name: string; make: () => Promise<TestDatabase | null> }[] = [
  { name: 'pglite', make: async () => pgliteTestDatabase() },
  { name: 'postgres', make: postgresTestDatabase },
];

for (const backend of backends) {
  describe(`SQL repository on ${backend.name}`, () => {
    let tdb: TestDatabase | null = null;
    let database: Database;
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));

    beforeAll(async () => {
      tdb = await backend.make();
      if (tdb) database = await tdb.open();
    }, 30_000);

    afterAll(async () => {
      await database?.close();
      await tdb?.cleanup();
    });

    const make = (db = database) =>
      new GeneratorController({
        clock,
        repo: new SqlControllerRepository(db.db, clock),
        relay: new FakeRelay(),
        bus: new FakeBus(),
        logger: silentLogger,
        config: { hoaBootDelaySeconds: 30, bootArmingPolicy: 'preserve_state' },
      });

    it('boots an empty database, records a run with fuel, and writes its events to the outbox', async (ctx) => {
      if (!tdb) return ctx.skip();
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
      const audit = (await database.db.select().from(auditLog)).map(
        (a) => `${a.action}:${a.who}:${a.source}`,
      );
      expect(audit).toEqual(
        expect.arrayContaining(['SYSTEM_BOOT_RESET:system:controller', 'generator.start:admin:127.0.0.1']),
      );
    });

    it('keeps state across a reopen and closes the orphaned run at boot', async (ctx) => {
      if (!tdb) return ctx.skip();
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
      const open = await new SqlControllerRepository(database.db, clock).openRuns();
      expect(open).toEqual([]);
    });

    it('a batch is all or nothing: a failure inside the transaction leaves no run, state or event', async (ctx) => {
      if (!tdb) return ctx.skip();
      const repo = new SqlControllerRepository(database.db, clock);
      const before = (await database.db.select().from(runs)).length;
      const eventsBefore = (await database.db.select().from(outbox)).length;
      await expect(
        repo.commit({
          label: 'broken',
          createRun: {
            ref: { id: null },
            start_time: 1,
            trigger_type: 'manual',
            notes: null,
            fuel_type_at_run: 'lpg',
            load_at_run: 50,
            gph_at_run: 1,
            scheduled_run_id: null,
          },
          events: () => [{ event: 'x', data: { n: 1n as unknown as number } }],
        }),
      ).rejects.toThrow();
      expect((await database.db.select().from(runs)).length).toBe(before);
      expect((await database.db.select().from(outbox)).length).toBe(eventsBefore);
    });
  });
}
