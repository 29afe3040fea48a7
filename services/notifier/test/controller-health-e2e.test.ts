/**
 * Generator health from a real controller process to a delivered notification: a start nothing
 * confirms becomes "Generator failed to start", and feedback with no command becomes "Generator running
 * without a command", each with its default template, over the broker.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHttpPeer } from '@outpost/notification-senders/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPostgres } from './helpers/databases.js';
import { client, embeddedBroker, eventually, launchNotifier } from './helpers/notifier.js';

const here = dirname(fileURLToPath(import.meta.url));
const controllerMain = resolve(here, '../../controller/dist/main.js');
const pg = await freshPostgres();
const dataDir = mkdtempSync(join(tmpdir(), 'notifier-health-e2e-'));
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
      START_CONFIRM_SECONDS: '5',
      DATA_DIR: join(dataDir, 'controller-data'),
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
  const call = async (method: string, path: string, body: unknown = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return res.status;
  };
  return { call, stop: () => proc.kill('SIGTERM') };
}

describe('generator health notifications from a real controller', () => {
  it('fail to start and a run without a command reach a channel with their default text', async () => {
    const broker = await embeddedBroker();
    const peer = await startHttpPeer();
    const controller = await startController(broker.url);
    const notifier = await launchNotifier({ mqttUrl: broker.url, databaseUrl: pg.url });
    try {
      await eventually(async () => notifier.bus.connected);
      const api = await client(notifier.url);
      // The first channel receives every event with its default template.
      await api.post('/api/notifications/channels', {
        name: 'phone',
        channel_type: 'webhook',
        config: { url: `${peer.url}/hook` },
      });
      expect(await controller.call('PUT', '/api/health/settings', { running_feedback_source: 'api' })).toBe(
        200,
      );
      expect(await controller.call('POST', '/api/generator/arm')).toBe(200);
      expect(await controller.call('POST', '/api/generator/start')).toBe(200);
      const titles = () => peer.requests.map((r) => (r.json as { title: string }).title);
      await eventually(async () => titles().includes('Generator failed to start'), 20_000);
      const failed = peer.requests.find(
        (r) => (r.json as { title: string }).title === 'Generator failed to start',
      );
      expect((failed?.json as { body?: string } | undefined)?.body).toContain(
        'no running feedback within 5 s of relay ON',
      );

      expect(await controller.call('POST', '/api/health/running-feedback', { running: true })).toBe(200);
      await eventually(async () => titles().includes('Generator running without a command'), 20_000);
    } finally {
      controller.stop();
      await notifier.close();
      await peer.close();
      await broker.close();
    }
  }, 120_000);
});
