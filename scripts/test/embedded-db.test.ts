import { spawn, spawnSync } from 'node:child_process';
import pg from 'pg';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, launch, root, signalGroup, until, freePorts, portEnv } from './helpers/processes.js';
import { scratchStacks } from './helpers/scratch.js';

/**
 * No DATABASE_URL: the launcher runs one real PostgreSQL under DATA_DIR/postgres, the services log in
 * with roles of their own, and the run history survives restarts, a killed launcher and all.
 */
const { dirs, running } = scratchStacks(60_000);

const ADMIN_PASSWORD = 'correct-horse-battery';

async function call(base: string, path: string, token?: string, method = 'GET') {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(method === 'POST'
      ? {
          body: path.endsWith('login')
            ? JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD })
            : '{}',
        }
      : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A list (the spec's shape) or { runs, total }: the runs either way. */
function runsOf(body: unknown): { stop_reason: string }[] {
  return (Array.isArray(body) ? body : (body as { runs: unknown[] }).runs) as { stop_reason: string }[];
}

describe('embedded PostgreSQL under the launcher', () => {
  it('keeps a run made over REST through a killed launcher and a restart; a crashed server stops the stack', {
    timeout: 240_000,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-embedded-db-'));
    dirs.push(dataDir);
    const ports = await freePorts(
      'MQTT_PORT',
      'MQTT_WS_PORT',
      'CONTROLLER_PORT',
      'RELAYNODE_PORT',
      'NOTIFIER_PORT',
      'POSTGRES_PORT',
    );
    const env = {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      ADMIN_PASSWORD,
      GPIO_MODE: 'mock',
      START_TIMEOUT_SECONDS: '150',
      ...portEnv(ports),
    };
    const services = ['notifier', 'relay-node', 'controller'];
    const controller = `http://127.0.0.1:${ports.CONTROLLER_PORT}`;

    const first = launch(env, services);
    running.push(first);
    const out = await first.ready;
    expect(out).toMatch(new RegExp(`PostgreSQL +127\\.0\\.0\\.1:${ports.POSTGRES_PORT} +\\(embedded`));
    expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    for (const svc of ['controller', 'notifier']) expect(existsSync(join(dataDir, svc))).toBe(false);
    const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
    expect(Object.keys(secrets.postgres.roles).sort()).toEqual(['controller', 'notifier']);
    expect(out).not.toContain(secrets.postgres.password);

    const token = (await call(controller, '/api/auth/login', undefined, 'POST')).body.access_token as string;
    await until(
      'the relay node',
      async () => (await call(controller, '/api/generator/state', token)).body.slave_connected === true,
      30_000,
    );
    expect((await call(controller, '/api/generator/arm', token, 'POST')).status).toBe(200);
    expect((await call(controller, '/api/generator/start', token, 'POST')).status).toBe(200);
    expect((await call(controller, '/api/generator/stop', token, 'POST')).status).toBe(200);

    // Power cut: the launcher and its services die at once; the server, in its own group, is left over.
    await signalGroup(first, 'SIGKILL');
    const second = launch(env, services);
    running.push(second);
    const out2 = await second.ready;
    expect(out2).toMatch(/stopped a PostgreSQL left running by an earlier launcher/);
    const token2 = (await call(controller, '/api/auth/login', undefined, 'POST')).body.access_token as string;
    const history = await call(controller, '/api/generator/history?limit=10', token2);
    expect(history.status).toBe(200);
    const body = history.body as unknown;
    // A list (the spec's shape) or { runs, total }: the run is there either way.
    const runs = (Array.isArray(body) ? body : (body as { runs: unknown[] }).runs) as {
      stop_reason: string;
    }[];
    expect(runs).toHaveLength(1);
    expect(runs[0]!.stop_reason).toBe('manual');

    // Backup with the stack stopped, a lost disk, a restore: the run is back.
    await signalGroup(second, 'SIGINT');
    expect(second.proc.exitCode).toBe(0);
    const archive = join(mkdtempSync(join(tmpdir(), 'outpost-embedded-backup-')), 'site.tar.gz');
    dirs.push(dirname(archive));
    const backup = spawnSync(process.execPath, [join(root, 'scripts/dist/backup.js'), '--out', archive], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/embedded database \(postgres\)/);
    for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true });
    const restore = spawnSync(process.execPath, [join(root, 'scripts/dist/restore.js'), archive], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(restore.status, restore.stderr).toBe(0);
    const third = launch(env, services);
    running.push(third);
    await third.ready;
    const token3 = (await call(controller, '/api/auth/login', undefined, 'POST')).body.access_token as string;
    expect(runsOf((await call(controller, '/api/generator/history?limit=10', token3)).body)).toHaveLength(1);

    // The server dies under the stack: one clear line, and the stack stops.
    const pid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    await Promise.race([third.exited, new Promise((r) => setTimeout(r, 30_000))]);
    expect(third.proc.exitCode).toBe(1);
    expect(third.output()).toMatch(/^outpost: postgres exited unexpectedly \(code null\); stopping$/m);
  });

  it('runs alone for systemd: write-env.mjs gives the controller a URL that logs in with its own role', {
    timeout: 90_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-pg-unit-'));
    dirs.push(dir);
    chmodSync(dir, 0o711);
    const dataDir = join(dir, 'data');
    const port = await freePort();
    const wrote = spawnSync(
      process.execPath,
      [
        join(root, 'infra/systemd/write-env.mjs'),
        '--data-dir',
        dataDir,
        '--out',
        join(dir, 'etc'),
        '--postgres-port',
        String(port),
      ],
      { encoding: 'utf8' },
    );
    expect(wrote.status, wrote.stderr).toBe(0);
    const server = spawn(process.execPath, [join(root, 'scripts/dist/postgres.js')], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, POSTGRES_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    server.stdout.on('data', (d) => (out += d));
    server.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => server.once('exit', (code) => r(code)));
    try {
      await until('the server to be ready', () => out.includes('PostgreSQL ready on 127.0.0.1:'), 60_000);
      const url = /^DATABASE_URL=(.+)$/m.exec(
        readFileSync(join(dir, 'etc', 'controller.db.env'), 'utf8'),
      )![1]!;
      expect(url).toMatch(new RegExp(`^postgres://controller:[^@]+@127\\.0\\.0\\.1:${port}/outpost$`));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query(
        "SELECT current_user AS who, has_schema_privilege('controller', 'CREATE') AS owns",
      );
      await client.end();
      expect(rows[0]).toEqual({ who: 'controller', owns: true });
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
