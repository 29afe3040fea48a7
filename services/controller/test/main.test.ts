import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCI } from '@outpost/runtime/testing';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from './helpers/databases.js';
import { type Mosquitto, startMosquitto } from './helpers/mosquitto.js';
import { waitFor } from './helpers/wait.js';

const MAIN = new URL('../dist/main.js', import.meta.url).pathname;
const built = existsSync(MAIN);
// The build runs before the tests (turbo); in CI a missing build is a failure, not a skip.
if (!built && isCI()) throw new Error(`${MAIN} missing: build the controller before its tests`);

// Checked before any connection is made: nothing listens there.
const UNUSED_DATABASE_URL = 'postgres://outpost@127.0.0.1:9/outpost';

describe('controller process', () => {
  it('exits with one clear line when DATABASE_URL is missing', (ctx) => {
    if (!built) return ctx.skip();
    const res = spawnSync(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', JWT_SECRET: 'main-test-secret-0123456789' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe(
      'Invalid environment variable DATABASE_URL: required (npm start runs an embedded PostgreSQL; or set postgres://…)',
    );
  });

  it('exits with one clear line when JWT_SECRET is missing', (ctx) => {
    if (!built) return ctx.skip();
    const res = spawnSync(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: UNUSED_DATABASE_URL },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe('Invalid environment variable JWT_SECRET: required but not set');
  });

  it('exits with one clear line when RELAYNODE_URL is set without RELAYNODE_API_SECRET', (ctx) => {
    if (!built) return ctx.skip();
    const res = spawnSync(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        JWT_SECRET: 'main-test-secret-0123456789',
        DATABASE_URL: UNUSED_DATABASE_URL,
        RELAYNODE_URL: 'http://127.0.0.1:8001',
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe(
      'Invalid environment variable RELAYNODE_API_SECRET: required when RELAYNODE_URL is set',
    );
  });

  describe('running with a database and a broker', () => {
    let broker: Mosquitto | null;
    let tdb: TestDatabase;
    let dir: string;
    let child: ChildProcess;
    let url = '';
    const lines: string[] = [];

    beforeAll(async () => {
      if (!built) return;
      broker = await startMosquitto();
      if (!broker) return;
      tdb = await testDatabase();
      // The PostgreSQL test database is created empty; the process migrates it itself.
      dir = mkdtempSync(join(tmpdir(), 'controller-main-'));
      child = spawn(process.execPath, [MAIN], {
        env: {
          PATH: process.env.PATH ?? '',
          JWT_SECRET: 'main-test-secret-0123456789',
          ADMIN_PASSWORD: 'main-test-password',
          DATA_DIR: dir,
          DATABASE_URL: tdb.url,
          MQTT_URL: broker.url,
          MQTT_TOPIC_PREFIX: 'mtest',
          PORT: '0',
          HOST: '127.0.0.1',
          GPIO_MODE: 'mock',
          HEARTBEAT_INTERVAL_SECONDS: '1',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (b: Buffer) => lines.push(...b.toString().split('\n')));
      child.stderr?.on('data', (b: Buffer) => lines.push(...b.toString().split('\n')));
      await waitFor(() => lines.some((l) => l.includes('controller listening')), 60_000);
      url = JSON.parse(lines.find((l) => l.includes('controller listening'))!).url;
    }, 90_000);

    afterAll(async () => {
      if (child && child.exitCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      await broker?.cleanup();
      await tdb?.cleanup();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('serves health, logs in the configured admin, and drives the relay lease over MQTT', async (ctx) => {
      if (!built || !broker) return ctx.skip();
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'healthy' });
      const login = await fetch(`${url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'main-test-password' }),
      });
      const { access_token } = (await login.json()) as { access_token: string };
      const auth = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
      const health = await (await fetch(`${url}/health`, { headers: auth })).json();
      expect(health).toMatchObject({
        status: 'healthy',
        service: 'controller',
        broker: 'connected',
        database: 'connected',
        gpio: 'mock',
      });
      const desired: { armed: boolean; relay_on: boolean; seq: number }[] = [];
      const sub = mqtt.connect(broker.url);
      sub.on('message', (_t, p) => desired.push(JSON.parse(p.toString())));
      await sub.subscribeAsync('mtest/relaynode/main/desired', { qos: 1 });
      await fetch(`${url}/api/generator/arm`, { method: 'POST', headers: auth });
      const start = await fetch(`${url}/api/generator/start`, { method: 'POST', headers: auth, body: '{}' });
      expect(start.status).toBe(200);
      await waitFor(() => desired.some((d) => d.armed && d.relay_on));
      await fetch(`${url}/api/generator/stop`, { method: 'POST', headers: auth, body: '{}' });
      await waitFor(() => desired.at(-1)?.relay_on === false);
      // Heartbeats keep coming every interval with increasing seq.
      const n = desired.length;
      await waitFor(() => desired.length >= n + 2, 5000);
      expect(desired.at(-1)!.seq).toBeGreaterThan(desired[n - 1]!.seq);
      sub.end(true);
    }, 30_000);
  });
});
