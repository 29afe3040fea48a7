/**
 * The notifier and a real controller process on one broker: a start through the controller's REST
 * API becomes a rendered notification, and events raised while the notifier is down are delivered
 * once it is back (persistent MQTT session).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHttpPeer } from '@outpost/notification-senders/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { formatTime } from '../src/domain/templates.js';
import { freshPostgres } from './helpers/databases.js';
import { client, embeddedBroker, eventually, launchNotifier } from './helpers/notifier.js';

const here = dirname(fileURLToPath(import.meta.url));
const controllerMain = resolve(here, '../../controller/dist/main.js');
const pg = await freshPostgres();
const dataDir = mkdtempSync(join(tmpdir(), 'notifier-e2e-'));
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await pg.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

async function startController(mqttUrl: string) {
  const port = await freePort();
  const proc = spawn(process.execPath, [controllerMain], {
    env: {
      PATH: process.env.PATH,
      MQTT_URL: mqttUrl,
      JWT_SECRET: 'e2e-controller-jwt-secret-0123456789',
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD: 'e2e-admin-password',
      CONTROLLER_PORT: String(port),
      HOST: '127.0.0.1',
      GPIO_MODE: 'mock',
      LOG_LEVEL: 'warn',
      DATA_DIR: join(dataDir, 'controller-data'),
      // The same database as the notifier: each keeps to its own schema, as under npm start.
      DATABASE_URL: pg.url,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(proc);
  const base = `http://127.0.0.1:${port}`;
  await eventually(async () => (await fetch(`${base}/health`).catch(() => null))?.ok, 60_000);
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'e2e-admin-password' }),
  });
  const { access_token } = (await login.json()) as { access_token: string };
  const call = async (path: string, body: unknown = {}) => {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { call, stop: () => proc.kill('SIGTERM') };
}

describe('notifications from a real controller', () => {
  it('renders the configured template for a start, and delivers starts and stops raised while the notifier was down', async () => {
    const broker = await embeddedBroker();
    const peer = await startHttpPeer();
    const db = { databaseUrl: pg.url };
    const controller = await startController(broker.url);
    try {
      let notifier = await launchNotifier({ mqttUrl: broker.url, ...db });
      await eventually(async () => notifier.bus.connected);
      const api = await client(notifier.url);
      const channel = (
        await api.post('/api/notifications/channels', {
          name: 'ops hook',
          channel_type: 'webhook',
          config: { url: `${peer.url}/hook` },
        })
      ).body as { id: number };
      const setting = (event: string, title: string, body: string) =>
        api.put(`/api/system-notifications/${event}`, {
          enabled: true,
          channel_ids: [channel.id],
          group_ids: [],
          title_template: title,
          body_template: body,
        });
      expect((await setting('generator_started', 'Run {{run_id}} started', 'at {{start_time}}')).status).toBe(
        200,
      );
      expect(
        (
          await setting(
            'generator_stopped',
            'Run {{run_id}} stopped',
            '{{reason}} after {{runtime}}, {{fuel_gallons}} gal',
          )
        ).status,
      ).toBe(200);

      expect((await controller.call('/api/generator/arm')).status).toBe(200);
      const started = await controller.call('/api/generator/start', { notes: 'e2e' });
      expect(started.status).toBe(200);
      const [first] = await peer.waitFor(1, 15_000);
      expect(first!.json).toMatchObject({
        title: `Run ${started.body.run_id} started`,
        body: `at ${formatTime(started.body.start_time)}`,
      });
      expect((await controller.call('/api/generator/stop', { reason: 'e2e' })).status).toBe(200);
      await peer.waitFor(2, 15_000);
      expect(peer.requests[1]!.json).toMatchObject({ title: `Run ${started.body.run_id} stopped` });

      // Notifier down: a whole run happens without it.
      await notifier.close();
      const second = await controller.call('/api/generator/start', {});
      expect(second.status).toBe(200);
      expect((await controller.call('/api/generator/stop', {})).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      expect(peer.requests).toHaveLength(2);

      notifier = await launchNotifier({ mqttUrl: broker.url, ...db });
      try {
        await peer.waitFor(4, 20_000);
        const late = peer.requests.slice(2).map((r) => r.json as { title: string; body: string });
        // Delivered after the restart, in the order the run happened.
        expect(late.map((m) => m.title)).toEqual([
          `Run ${second.body.run_id} started`,
          `Run ${second.body.run_id} stopped`,
        ]);
        const stopped = late.find((m) => m.title.endsWith('stopped'))!;
        expect(stopped.body).toMatch(/^manual after \d+s, \d+\.\d\d gal$/);
      } finally {
        await notifier.close();
      }
    } finally {
      controller.stop();
      await peer.close();
      await broker.close();
    }
  }, 120_000);
});
