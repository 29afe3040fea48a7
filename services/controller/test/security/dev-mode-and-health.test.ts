import { createLogger } from '@outpost/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllerEnv } from '../../src/config.js';
import { type RunningController, startController } from '../../src/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';

/**
 * Mock GPIO is what every host that is not a Pi gets (GPIO_MODE=auto on x86): it alone must not open
 * the development endpoints that fake a BMS signal or move the HOA switch. They need DEV_MODE=true,
 * which says so in the log. And /health tells a caller without a token only that the service is up.
 */
const PASSWORD = 'dev-mode-admin-password';
const DEV_PATHS: [string, string, unknown?][] = [
  ['GET', '/api/dev/status'],
  ['GET', '/api/dev/gpio/state'],
  ['POST', '/api/dev/gpio/bms-signal', { active: true }],
  ['POST', '/api/dev/gpio/toggle'],
  ['POST', '/api/dev/gpio/hoa', { position: 'run' }],
  ['POST', '/api/dev/webhook/test'],
];

interface Started {
  controller: RunningController;
  logged: Record<string, unknown>[];
  token: string;
}

async function start(db: TestDatabase, extra: Record<string, string>): Promise<Started> {
  const logged: Record<string, unknown>[] = [];
  const env = ControllerEnv.parse({
    DATABASE_URL: db.url,
    JWT_SECRET: 'dev-mode-test-secret-0123456789',
    ADMIN_PASSWORD: PASSWORD,
    HOST: '127.0.0.1',
    PORT: '0',
    GPIO_MODE: 'mock',
    ...extra,
  });
  const logger = createLogger({
    service: 'controller',
    level: 'info',
    destination: { write: (line: string) => logged.push(JSON.parse(line)) },
  });
  const controller = await startController(env, { logger });
  const login = await fetch(`${controller.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const { access_token } = (await login.json()) as { access_token: string };
  return { controller, logged, token: access_token };
}

const call = (s: Started, method: string, path: string, body?: unknown) =>
  fetch(`${s.controller.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
  });

const devWarnings = (s: Started) =>
  s.logged.filter((l) => (l.level === 40 || l.level === 'warn') && String(l.msg).includes('DEV_MODE'));

describe('development endpoints need DEV_MODE=true (security)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    await db?.cleanup();
  });

  it('mock GPIO without DEV_MODE: every /api/dev/* path is 404, even to the admin, and no DEV_MODE warning', async () => {
    const s = await start(db, {});
    try {
      for (const [method, path, body] of DEV_PATHS) {
        const res = await call(s, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(404);
      }
      // The state the forged inputs would have changed is untouched.
      const state = (await (await call(s, 'GET', '/api/generator/state')).json()) as Record<string, unknown>;
      expect(state.running ?? false).toBe(false);
      expect(devWarnings(s)).toEqual([]);
      const spec = (await (await fetch(`${s.controller.url}/api/openapi.json`)).json()) as {
        paths: Record<string, unknown>;
      };
      expect(Object.keys(spec.paths).filter((p) => p.startsWith('/api/dev/'))).toEqual([]);
    } finally {
      await s.controller.close();
    }
  });

  it('DEV_MODE=true with mock GPIO: the endpoints answer and one warning line says so', async () => {
    const s = await start(db, { DEV_MODE: 'true' });
    try {
      expect((await call(s, 'GET', '/api/dev/status')).status).toBe(200);
      const bms = await call(s, 'POST', '/api/dev/gpio/bms-signal', { active: false });
      expect(bms.status).toBe(200);
      expect((await call(s, 'POST', '/api/dev/gpio/hoa', { position: 'auto' })).status).toBe(200);
      const warnings = devWarnings(s);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toMatch(/DEV_MODE=true: development endpoints at \/api\/dev\//);
      // Still behind the bearer token.
      expect((await fetch(`${s.controller.url}/api/dev/status`)).status).toBe(401);
    } finally {
      await s.controller.close();
    }
  });

  it('/health: {status} only without a token or with a bad one; the detail with a valid token', async () => {
    const s = await start(db, {});
    try {
      const url = `${s.controller.url}/health`;
      expect(await (await fetch(url)).json()).toEqual({ status: 'healthy' });
      const forged = await fetch(url, { headers: { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x' } });
      expect(forged.status).toBe(200);
      expect(await forged.json()).toEqual({ status: 'healthy' });
      const full = (await (
        await fetch(url, { headers: { authorization: `Bearer ${s.token}` } })
      ).json()) as Record<string, unknown>;
      expect(full).toMatchObject({
        status: 'healthy',
        service: 'controller',
        database: 'connected',
        broker: 'not_used',
        gpio: 'mock',
        warnings: expect.any(Array),
      });
      expect(full.version).toEqual(expect.any(String));
    } finally {
      await s.controller.close();
    }
  });
});
