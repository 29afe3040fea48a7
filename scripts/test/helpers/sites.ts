import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { freePort, freePorts, joinScript, type Launched, launch, portEnv } from './processes.js';

/**
 * The two hosts of a site as tests run them: a controller host's launcher (controller and notifier,
 * its own broker unless one is given) and what it prints for `npm run join-token`.
 */
export const ADMIN_PASSWORD = 'correct-horse-battery';

export async function controllerHost(
  dataDir: string,
  running: Launched[],
  opts: { mqttUrl?: string; env?: Record<string, string>; netns?: string; joinUrl?: string } = {},
) {
  const ports = await freePorts('CONTROLLER_PORT', 'NOTIFIER_PORT', 'MQTT_PORT', 'MQTT_WS_PORT');
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    ADMIN_PASSWORD,
    HEARTBEAT_INTERVAL_SECONDS: '1',
    START_TIMEOUT_SECONDS: '150',
    ...(opts.mqttUrl ? { MQTT_URL: opts.mqttUrl } : {}),
    ...portEnv(ports),
    ...opts.env,
  };
  const run = launch(env, ['controller', 'notifier'], undefined, { netns: opts.netns });
  running.push(run);
  await run.ready;
  const joinArgs = opts.joinUrl ? ['token', '--mqtt-url', opts.joinUrl] : ['token'];
  const token = spawnSync(process.execPath, [joinScript, ...joinArgs], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  expect(token.status, token.stderr).toBe(0);
  return { run, ports, join: token.stdout.trim(), joinStderr: token.stderr };
}

export async function api(base: string, path: string, init: RequestInit & { token?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(`${base}${path}`, { ...init, headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Logs in as the admin and returns the bearer token. */
export async function adminToken(controller: string): Promise<string> {
  const login = await api(controller, '/api/auth/login', {
    method: 'POST',
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  expect(login.status).toBe(200);
  return login.body.access_token as string;
}

/** The relay node host: a launcher running only the relay node, paired by the join string. */
export async function relayHost(
  dataDir: string,
  join: string,
  running: Launched[],
  opts: { failsafeSeconds?: number; env?: Record<string, string>; netns?: string },
) {
  const port = await freePort();
  const run = launch(
    {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      RELAYNODE_PORT: String(port),
      ...(opts.failsafeSeconds ? { FAILSAFE_TIMEOUT_SECONDS: String(opts.failsafeSeconds) } : {}),
      GPIO_MODE: 'mock',
      ...opts.env,
    },
    ['relay-node', '--join', join],
    undefined,
    { netns: opts.netns },
  );
  running.push(run);
  return { run, port, output: await run.ready };
}
