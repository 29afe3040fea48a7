import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@outpost/notification-senders/testing';
import { afterAll } from 'vitest';
import { eventually } from './notifier.js';

const controllerMain = resolve(dirname(fileURLToPath(import.meta.url)), '../../../controller/dist/main.js');
const PASSWORD = 'e2e-admin-password';

export interface ControllerProcess {
  url: string;
  /** The admin's bearer token. */
  token: string;
  /** An authenticated call to its REST API. */
  call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): void;
}

/**
 * Real controller processes for the file's tests (the controller's build), on `databaseUrl`: the same
 * database as the notifier, each keeping to its own schema as under npm start. Killed after the file.
 */
export function controllerProcesses(databaseUrl: () => string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'notifier-e2e-controller-'));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  return async function startController(
    mqttUrl: string,
    env: Record<string, string> = {},
  ): Promise<ControllerProcess> {
    const port = await freePort();
    const proc = spawn(process.execPath, [controllerMain], {
      env: {
        PATH: process.env.PATH,
        MQTT_URL: mqttUrl,
        JWT_SECRET: 'e2e-controller-jwt-secret-0123456789',
        ADMIN_USERNAME: 'admin',
        ADMIN_PASSWORD: PASSWORD,
        CONTROLLER_PORT: String(port),
        HOST: '127.0.0.1',
        GPIO_MODE: 'mock',
        LOG_LEVEL: 'warn',
        DATA_DIR: join(dataDir, `controller-${children.length}`),
        DATABASE_URL: databaseUrl(),
        ...env,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(proc);
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${base}/health`).catch(() => null))?.ok, 60_000);
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    const { access_token } = (await login.json()) as { access_token: string };
    return {
      url: base,
      token: access_token,
      call: async (method, path, body = {}) => {
        const res = await fetch(base + path, {
          method,
          headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      },
      stop: () => proc.kill('SIGTERM'),
    };
  };
}
