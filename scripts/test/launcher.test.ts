import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { stopOrphanServer } from '../src/embedded-db.js';
import { afterAll, describe, expect, it } from 'vitest';
import { availableServices, mainFile } from '../src/services.js';
import { freePort, launch, launcherScript, root, until, freePorts, portEnv } from './helpers/processes.js';

const launcher = launcherScript;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) {
    await stopOrphanServer(d);
    rmSync(d, { recursive: true, force: true });
  }
});

function listening(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(true));
    s.listen(port, '127.0.0.1', () => s.close(() => res(false)));
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function childPids(pid: number): number[] {
  const path = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

describe('npm start launcher', () => {
  it('starts the broker and every built service, prints their URLs, and Ctrl-C stops them in order, leaving nothing behind', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-launch-'));
    dirs.push(dataDir);
    const ports = await freePorts(
      'MQTT_PORT',
      'MQTT_WS_PORT',
      'CONTROLLER_PORT',
      'RELAYNODE_PORT',
      'NOTIFIER_PORT',
      'SIMULATOR_PORT',
      'DASHBOARD_PORT',
    );
    const env = {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      ...portEnv(ports),
    };
    const started = Date.now();
    const run = launch(env);
    const out = await run.ready;
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(out).toContain(`mqtt://127.0.0.1:${ports.MQTT_PORT}`);
    expect(out).toContain(`ws://127.0.0.1:${ports.MQTT_WS_PORT}`);

    // Secrets: created once, private.
    const secretsPath = join(dataDir, 'secrets.json');
    expect(statSync(secretsPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'mqtt-users.json')).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(readFileSync(secretsPath, 'utf8'));

    // The broker takes the generated credentials and refuses wrong ones.
    const good = await mqtt.connectAsync(`mqtt://127.0.0.1:${ports.MQTT_PORT}`, {
      username: 'viewer',
      password: secrets.mqtt.viewer,
      reconnectPeriod: 0,
    });
    await good.endAsync();
    await expect(
      mqtt.connectAsync(`mqtt://127.0.0.1:${ports.MQTT_PORT}`, {
        username: 'viewer',
        password: 'wrong',
        reconnectPeriod: 0,
      }),
    ).rejects.toThrow();

    // One line per built service, each healthy.
    for (const s of availableServices(root)) {
      const port = ports[s.portEnv as keyof typeof ports];
      expect(out).toContain(`http://127.0.0.1:${port}`);
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      expect(res.status, s.name).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe('healthy');
    }

    // The admin password: printed once, then kept only as the controller's hash.
    const adminPassword = /login: admin \/ (\S+) {2}\(generated; shown once/.exec(out)?.[1] as string;
    expect(adminPassword).toBeDefined();
    expect(secrets.ADMIN_PASSWORD).toBeUndefined();
    expect(readFileSync(secretsPath, 'utf8')).not.toContain(adminPassword);
    expect(out).toContain('the admin password is no longer kept in');
    const adminLogin = await fetch(`http://127.0.0.1:${ports.CONTROLLER_PORT}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: adminPassword }),
    });
    expect(adminLogin.status).toBe(200);

    // The simulator has a login of its own, printed on the first start; the admin's does not open it.
    expect(out).toContain(`login: admin / ${secrets.SIMULATOR_PASSWORD}  (generated;`);
    const simLogin = (password: string) =>
      fetch(`http://127.0.0.1:${ports.SIMULATOR_PORT}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password }),
      });
    expect((await simLogin(adminPassword)).status).toBe(401);
    expect((await simLogin(secrets.SIMULATOR_PASSWORD)).status).toBe(200);

    // The dashboard's login for the generator sites (needed beyond loopback), printed like the others.
    expect(secrets.DASHBOARD_SITES_PASSWORD).toMatch(/^\S{10,}$/);
    expect(out).toContain(`generator sites login: sites / ${secrets.DASHBOARD_SITES_PASSWORD}  (generated;`);

    const kids = childPids(run.proc.pid!);
    // The broker, the embedded PostgreSQL and every service.
    expect(kids.length).toBe(2 + availableServices(root).length);
    const exited = new Promise<number | null>((res) => run.proc.once('exit', (code) => res(code)));
    const before = run.output().length;
    // Ctrl-C in a terminal: SIGINT to every process of the foreground group at once.
    process.kill(-run.proc.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    const stop = run.output().slice(before);
    expect(stop).not.toMatch(/^\s+at /m);
    expect(stop).not.toMatch(/│ (warn|error|fatal)/);
    expect(stop).not.toMatch(/Error|ECONNREFUSED|ECONNRESET/);
    const stopped = [...stop.matchAll(/^outpost: (\S+) stopped$/gm)].map((m) => m[1]);
    const order = [...availableServices(root).map((s) => s.name)].reverse();
    expect(stopped).toEqual([...order, 'broker', 'postgres']);
    for (const pid of kids) expect(alive(pid), `child ${pid} still running`).toBe(false);
    for (const [name, port] of Object.entries(ports))
      expect(await listening(port), `${name} ${port} still open`).toBe(false);

    // Second run: same secrets, password not printed again.
    const again = launch(env);
    const out2 = await again.ready;
    expect(JSON.parse(readFileSync(secretsPath, 'utf8'))).toEqual(secrets);
    expect(out2).not.toContain(adminPassword);
    expect(out2).toMatch(/^ {2}ADMIN_PASSWORD +not kept/m);
    const exited2 = new Promise((res) => again.proc.once('exit', res));
    again.proc.kill('SIGTERM');
    await exited2;
  }, 180_000);

  it('`npm start` itself exits 0 on Ctrl-C (no shell in between turns it into 130)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'outpost-launch-'));
    dirs.push(dataDir);
    let out = '';
    // Without the prestart build: the test is about npm's exit status, and a build while other test
    // files run services from the same dist folders would rewrite files they are loading.
    const proc = spawn('npm', ['start', '--ignore-scripts', '--', 'relay-node'], {
      cwd: root,
      env: {
        ...process.env,
        NO_COLOR: '1',
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        GPIO_MODE: 'mock',
        MQTT_PORT: String(await freePort()),
        MQTT_WS_PORT: String(await freePort()),
        RELAYNODE_PORT: String(await freePort()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
    await until(
      'npm start to be ready',
      () => out.includes('Press Ctrl-C to stop.') || proc.exitCode !== null,
      120_000,
    );
    expect(out).toContain('Press Ctrl-C to stop.');
    process.kill(-proc.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    expect(out).toMatch(/^outpost: broker stopped$/m);
  }, 150_000);

  it('refuses an unknown service name with the list of services', () => {
    const out = spawnSync(process.execPath, [launcher, 'toaster'], {
      env: { PATH: process.env.PATH, DATA_DIR: mkdtempSync(join(tmpdir(), 'outpost-launch-')) },
      encoding: 'utf8',
    });
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/unknown service "toaster"; services: notifier, relay-node, controller/);
  });

  it('stops with one line naming a bad variable', () => {
    const out = spawnSync(process.execPath, [launcher], {
      env: {
        PATH: process.env.PATH,
        MQTT_PORT: 'eighteen83',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'outpost-launch-')),
      },
      encoding: 'utf8',
    });
    expect(out.status).toBe(1);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/Invalid environment variable MQTT_PORT/);
  });

  it.each(['broker', ...availableServices(root).map((s) => s.name)])(
    '%s stops at start with one clear line naming a bad variable',
    (name) => {
      const script = name === 'broker' ? join(root, 'broker', 'dist', 'main.js') : mainFile(root, name);
      const out = spawnSync(process.execPath, [script], {
        env: {
          PATH: process.env.PATH,
          LOG_LEVEL: 'shouting',
          DATA_DIR: mkdtempSync(join(tmpdir(), 'outpost-bad-')),
          JWT_SECRET: 'x'.repeat(48),
          RELAYNODE_API_SECRET: 'y'.repeat(48),
          MQTT_ALLOW_ANONYMOUS: 'true',
        },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(out.status).toBe(1);
      const lines = out.stderr.trim().split('\n');
      expect(lines, out.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/LOG_LEVEL/);
    },
  );
});
