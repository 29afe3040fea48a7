import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launch, launcherScript, signalGroup, freePorts, portEnv } from './helpers/processes.js';
import { scratchStacks } from './helpers/scratch.js';

/** A user's own secrets, set in the environment, are the ones the services use. */
const { dirs, running } = scratchStacks(30_000);

const mine = {
  ADMIN_PASSWORD: 'correct-horse-battery',
  RELAYNODE_API_SECRET: 'shed-relay-key-0123456789',
  JWT_SECRET: 'a-jwt-secret-of-the-operators-own-choosing',
  USERNAME: 'pilot',
  PASSWORD: 'flight-sim-password',
};

/** The environment of each node child of the launcher, by the name its entry point gives it. */
function childEnvironments(launcherPid: number): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== launcherPid) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const name = /(?:services\/([\w-]+)|(broker))\/dist\/main\.js/.exec(cmd);
      if (!name) continue;
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
      out[(name[1] ?? name[2]) as string] = Object.fromEntries(
        env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      );
    } catch {
      // Gone, or not ours.
    }
  }
  return out;
}

async function post(url: string, body: unknown) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('secrets set in the environment', () => {
  it('are used by the controller, the relay node and the simulator, never printed, and kept when removed', {
    timeout: 180_000,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-own-secrets-'));
    dirs.push(dataDir);
    const ports = await freePorts(
      'MQTT_PORT',
      'MQTT_WS_PORT',
      'CONTROLLER_PORT',
      'RELAYNODE_PORT',
      'SIMULATOR_PORT',
    );
    const base = {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      GPIO_MODE: 'mock',
      ...portEnv(ports),
    };
    const services = ['controller', 'relay-node', 'simulator'];
    const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;
    const relayWith = (key: string) =>
      fetch(url(ports.RELAYNODE_PORT, '/api/relay/state'), { headers: { 'X-API-Key': key } });

    const first = launch({ ...base, ...mine }, services);
    running.push(first);
    const out = await first.ready;
    for (const name of ['ADMIN_PASSWORD', 'RELAYNODE_API_SECRET', 'JWT_SECRET', 'simulator login']) {
      expect(out).toMatch(new RegExp(`^  ${name} +from the environment$`, 'm'));
    }
    expect(out).toMatch(/^ {2}broker accounts +generated$/m);
    for (const value of Object.values(mine).filter((v) => v.length > 8)) expect(out).not.toContain(value);

    const admin = await post(url(ports.CONTROLLER_PORT, '/api/auth/login'), {
      username: 'admin',
      password: mine.ADMIN_PASSWORD,
    });
    expect(admin.status).toBe(200);
    expect((await relayWith(mine.RELAYNODE_API_SECRET)).status).toBe(200);
    expect((await relayWith('some-other-key-0123456789')).status).toBe(403);
    const sim = await post(url(ports.SIMULATOR_PORT, '/api/auth/login'), {
      username: mine.USERNAME,
      password: mine.PASSWORD,
    });
    expect(sim.status).toBe(200);
    // Each child sees only its own credentials: no other service's key, no other broker password.
    const envs = childEnvironments(first.proc.pid as number);
    const simulator = envs.simulator as Record<string, string>;
    expect(simulator.PASSWORD).toBe(mine.PASSWORD);
    for (const name of ['JWT_SECRET', 'RELAYNODE_API_SECRET', 'NOTIFIER_API_SECRET', 'ADMIN_PASSWORD'])
      expect(simulator[name], `simulator ${name}`).toBeUndefined();
    const stored0 = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
    const relay = envs['relay-node'] as Record<string, string>;
    expect(relay.RELAYNODE_API_SECRET).toBe(mine.RELAYNODE_API_SECRET);
    expect(relay.JWT_SECRET).toBeUndefined();
    expect(relay.ADMIN_PASSWORD).toBeUndefined();
    expect(relay.PASSWORD).toBeUndefined();
    expect((envs.controller as Record<string, string>).PASSWORD).toBeUndefined();
    expect((envs.broker as Record<string, string>).JWT_SECRET).toBeUndefined();
    for (const [name, env] of Object.entries(envs)) {
      const values = Object.values(env);
      // The launcher's own copy of every broker password stays with it: each child holds at most its own.
      const held = Object.values(stored0.mqtt as Record<string, string>).filter((pw) => values.includes(pw));
      expect(held.length, name).toBeLessThanOrEqual(1);
      // The notifier's key: the controller signs with it, the notifier checks it; nobody else has it.
      if (name !== 'controller' && name !== 'notifier')
        expect(values, name).not.toContain(stored0.NOTIFIER_API_SECRET);
    }

    await signalGroup(first, 'SIGINT');
    expect(first.proc.exitCode).toBe(0);

    // Restarted with the variables removed: secrets.json holds the values last in effect.
    const stored = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
    expect(stored).toMatchObject({
      RELAYNODE_API_SECRET: mine.RELAYNODE_API_SECRET,
      SIMULATOR_USERNAME: mine.USERNAME,
    });
    // The admin password is gone once the controller made the user: it keeps the hash alone.
    expect(stored.ADMIN_PASSWORD).toBeUndefined();
    expect(JSON.stringify(stored)).not.toContain(mine.ADMIN_PASSWORD);
    const second = launch(base, services);
    running.push(second);
    const out2 = await second.ready;
    expect(out2).toMatch(/^ {2}RELAYNODE_API_SECRET +from secrets\.json$/m);
    expect(out2).toMatch(/^ {2}ADMIN_PASSWORD +not kept/m);
    expect((await relayWith(mine.RELAYNODE_API_SECRET)).status).toBe(200);
    const token = await post(url(ports.CONTROLLER_PORT, '/api/auth/login'), {
      username: 'admin',
      password: mine.ADMIN_PASSWORD,
    });
    expect(token.status).toBe(200);
    expect(
      (
        await post(url(ports.SIMULATOR_PORT, '/api/auth/login'), {
          username: 'pilot',
          password: mine.PASSWORD,
        })
      ).status,
    ).toBe(200);
    await signalGroup(second, 'SIGINT');
    expect(second.proc.exitCode).toBe(0);
  });

  it.each([
    ['ADMIN_PASSWORD', 'hunter2'],
    ['RELAYNODE_API_SECRET', 'short'],
    ['MQTT_PASSWORD_AUTOMATION', 'tooshort'],
  ])('an invalid %s stops the start with one line naming it', (name, value) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bad-secret-'));
    dirs.push(dataDir);
    const res = spawnSync(process.execPath, [launcherScript], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, [name]: value },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(res.status).toBe(1);
    const lines = res.stderr.trim().split('\n');
    expect(lines, res.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^outpost: Invalid environment variable ${name}: `));
    expect(res.stderr + res.stdout).not.toContain(value);
  });
});
