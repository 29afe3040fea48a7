import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { describe, expect, it } from 'vitest';
import { freePorts, launch, launcherScript, portEnv, root, signalGroup } from './helpers/processes.js';
import { scratchStacks } from './helpers/scratch.js';

/**
 * A site upgrading from a version that kept each service's data in PGlite under DATA_DIR/<service>: the
 * launcher moves it into the embedded PostgreSQL before the services start, and the run history is there.
 */
const { dirs, running } = scratchStacks(60_000);

const ADMIN_PASSWORD = 'upgrade-admin-password';
const HOUR = 3_600_000;

/** What the earlier version left: its own migrations applied to PGlite, and some history. */
async function earlierVersionDataDir(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-pglite-upgrade-'));
  dirs.push(dataDir);
  const controller = new PGlite(join(dataDir, 'controller'));
  await migrate(drizzle(controller), {
    migrationsFolder: join(root, 'services', 'controller', 'drizzle'),
    migrationsSchema: 'controller',
  });
  const t0 = Date.UTC(2026, 5, 1, 12);
  await controller.query(
    `INSERT INTO controller.runs (start_time, stop_time, duration_seconds, trigger_type, stop_reason, notes)
     VALUES ($1, $2, 3600, 'victron', 'victron_stop', 'storm in June'),
            ($3, $4, 900, 'exercise', 'exercise_complete', null)`,
    [t0, t0 + HOUR, t0 + 24 * HOUR, t0 + 24 * HOUR + 900_000],
  );
  await controller.close();
  const notifier = new PGlite(join(dataDir, 'notifier'));
  await migrate(drizzle(notifier), {
    migrationsFolder: join(root, 'services', 'notifier', 'drizzle'),
    migrationsSchema: 'notifier',
  });
  await notifier.query(
    `INSERT INTO notifier.channels (name, channel_type, config, created_at, updated_at)
     VALUES ('shed phone', 'ntfy', '{"url":"ntfy://ntfy.example/outpost"}', $1, $1)`,
    [t0],
  );
  await notifier.close();
  return dataDir;
}

async function login(base: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('upgrading a DATA_DIR that holds PGlite data', () => {
  it('moves the run history into the embedded PostgreSQL and keeps the old folders', {
    timeout: 180_000,
  }, async () => {
    const dataDir = await earlierVersionDataDir();
    const ports = await freePorts('MQTT_PORT', 'MQTT_WS_PORT', 'CONTROLLER_PORT', 'POSTGRES_PORT');
    const run = launch(
      {
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        ADMIN_PASSWORD,
        GPIO_MODE: 'mock',
        START_TIMEOUT_SECONDS: '120',
        ...portEnv(ports),
      },
      ['controller'],
    );
    running.push(run);
    const out = await run.ready;
    expect(out).toContain('moving DATA_DIR/controller and DATA_DIR/notifier (PGlite, an earlier version)');
    expect(out).toMatch(/controller: \d+ rows in \d+ tables copied/);
    expect(out).toMatch(/notifier: \d+ rows in \d+ tables copied/);

    const base = `http://127.0.0.1:${ports.CONTROLLER_PORT}`;
    const token = await login(base);
    const res = await fetch(`${base}/api/generator/history?limit=10`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as unknown;
    const runs = (Array.isArray(body) ? body : (body as { runs: unknown[] }).runs) as {
      trigger_type: string;
      notes: string | null;
      duration_seconds: number;
    }[];
    expect(runs.map((r) => [r.trigger_type, r.duration_seconds]).sort()).toEqual([
      ['exercise', 900],
      ['victron', 3600],
    ]);
    expect(runs.find((r) => r.trigger_type === 'victron')?.notes).toBe('storm in June');

    // The old folders are kept under another name, so a second start does not copy again.
    const kept = readdirSync(dataDir).filter((n) => n.includes('.pglite-'));
    expect(kept.sort()).toEqual([
      expect.stringMatching(/^controller\.pglite-/),
      expect.stringMatching(/^notifier\.pglite-/),
    ]);
    expect(existsSync(join(dataDir, kept[0]!, 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'controller'))).toBe(false);

    await signalGroup(run, 'SIGINT');
    expect(await run.exited).toBe(0);
  });

  it('a folder it cannot read stops the start in one line and is left as it was', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-pglite-broken-'));
    dirs.push(dataDir);
    mkdirSync(join(dataDir, 'controller'));
    writeFileSync(join(dataDir, 'controller', 'PG_VERSION'), '17\n');
    const ports = await freePorts('MQTT_PORT', 'MQTT_WS_PORT', 'CONTROLLER_PORT', 'POSTGRES_PORT');
    const res = spawnSync(process.execPath, [launcherScript, 'controller'], {
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        GPIO_MODE: 'mock',
        ...portEnv(ports),
      },
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(res.status).toBe(1);
    const lines = res.stderr.trim().split('\n');
    expect(lines, res.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^outpost: the PGlite data of an earlier version could not be moved into PostgreSQL \(.+\); DATA_DIR\/controller left as they were$/,
    );
    expect(readdirSync(join(dataDir, 'controller'))).toEqual(['PG_VERSION']);
  }, 120_000);
});
