/**
 * Only the controller may call the notifier: a user's controller token (valid, or logged out) is
 * refused on the notifier's own port, and the API never opens because its key is unset.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT, UnsecuredJWT } from 'jose';
import { freePort } from '@outpost/notification-senders/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningNotifier } from '../../src/app.js';
import { freshPostgres } from '../helpers/databases.js';
import {
  embeddedBroker,
  eventually,
  launchNotifier,
  NOTIFIER_API_SECRET,
  token,
} from '../helpers/notifier.js';

const here = dirname(fileURLToPath(import.meta.url));
const controllerMain = resolve(here, '../../../controller/dist/main.js');
const notifierMain = resolve(here, '../../dist/main.js');
const CONTROLLER_JWT_SECRET = 'controller-user-token-key-0123456789abcdef';
const PASSWORD = 'service-token-admin-pw';

let broker: Awaited<ReturnType<typeof embeddedBroker>>;
let notifier: RunningNotifier;
let pg: Awaited<ReturnType<typeof freshPostgres>>;
let controller: ChildProcess | undefined;
let controllerUrl: string;
const dataDir = mkdtempSync(join(tmpdir(), 'notifier-token-'));

beforeAll(async () => {
  broker = await embeddedBroker();
  pg = await freshPostgres();
  notifier = await launchNotifier({ mqttUrl: broker.url, databaseUrl: pg.url });
  const port = await freePort();
  controller = spawn(process.execPath, [controllerMain], {
    env: {
      PATH: process.env.PATH,
      MQTT_URL: broker.url,
      JWT_SECRET: CONTROLLER_JWT_SECRET,
      NOTIFIER_URL: notifier.url,
      NOTIFIER_API_SECRET,
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD: PASSWORD,
      CONTROLLER_PORT: String(port),
      HOST: '127.0.0.1',
      GPIO_MODE: 'mock',
      LOG_LEVEL: 'warn',
      DATA_DIR: join(dataDir, 'controller'),
      DATABASE_URL: pg.url,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  controllerUrl = `http://127.0.0.1:${port}`;
  await eventually(async () => (await fetch(`${controllerUrl}/health`).catch(() => null))?.ok, 60_000);
});

afterAll(async () => {
  controller?.kill('SIGKILL');
  await notifier?.close();
  await broker?.close();
  await pg?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const channels = (base: string, auth: string) =>
  fetch(`${base}/api/notifications/channels`, { headers: { authorization: `Bearer ${auth}` } });

describe('notifier service credential', () => {
  it("a user's controller token works through the controller, never on the notifier's port, and not after logout", async () => {
    const login = await fetch(`${controllerUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    const { access_token } = (await login.json()) as { access_token: string };

    expect((await channels(controllerUrl, access_token)).status).toBe(200);
    const direct = await channels(notifier.url, access_token);
    expect(direct.status).toBe(401);
    expect(await direct.json()).toEqual({ detail: 'Invalid token' });

    await fetch(`${controllerUrl}/api/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect((await channels(controllerUrl, access_token)).status).toBe(401);
    expect((await channels(notifier.url, access_token)).status).toBe(401);
  });

  it('refuses tokens signed with the key but not issued by the controller for the notifier, or expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    const refused = {
      'user token signed with JWT_SECRET': await new SignJWT({ sub: 'admin' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode(CONTROLLER_JWT_SECRET)),
      'no audience or issuer': await new SignJWT({ sub: 'admin' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode(NOTIFIER_API_SECRET)),
      'another audience': await token(NOTIFIER_API_SECRET, 'HS256', { aud: 'outpost-controller' }),
      'another issuer': await token(NOTIFIER_API_SECRET, 'HS256', { iss: 'someone' }),
      expired: await token(NOTIFIER_API_SECRET, 'HS256', { iat: now - 600, exp: now - 60 }),
      'alg none': new UnsecuredJWT({ sub: 'admin', iss: 'outpost-controller', aud: 'outpost-notifier' })
        .setIssuedAt()
        .setExpirationTime('10m')
        .encode(),
    };
    const answers: Record<string, number> = {};
    for (const [name, jwt] of Object.entries(refused))
      answers[name] = (await channels(notifier.url, jwt)).status;
    expect(answers).toEqual(Object.fromEntries(Object.keys(refused).map((k) => [k, 401])));
    expect((await channels(notifier.url, await token())).status).toBe(200);
  });

  it('/health shows broker and database state only to the service token; a user token or none gets {status}', async () => {
    const health = (jwt?: string) =>
      fetch(`${notifier.url}/health`, jwt ? { headers: { authorization: `Bearer ${jwt}` } } : {}).then(
        (r) => r.json() as Promise<Record<string, unknown>>,
      );
    const userToken = await new SignJWT({ sub: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(CONTROLLER_JWT_SECRET));
    const now = Math.floor(Date.now() / 1000);
    for (const jwt of [
      undefined,
      userToken,
      await token(NOTIFIER_API_SECRET, 'HS256', { iat: now - 600, exp: now - 60 }),
    ])
      expect(await health(jwt)).toEqual({ status: 'healthy' });
    expect(await health(await token())).toMatchObject({
      status: 'healthy',
      service: 'notifier',
      broker: 'connected',
      database: 'connected',
    });
  });

  it('does not start without NOTIFIER_API_SECRET, so its API is never open', () => {
    const res = spawnSync(process.execPath, [notifierMain], {
      env: {
        PATH: process.env.PATH,
        MQTT_URL: broker.url,
        DATABASE_URL: pg.url,
        NOTIFIER_PORT: '0',
        HOST: '127.0.0.1',
        JWT_SECRET: CONTROLLER_JWT_SECRET,
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe('Invalid environment variable NOTIFIER_API_SECRET: required but not set');
  });
});
