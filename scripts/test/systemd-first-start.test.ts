import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, root } from './helpers/processes.js';

/**
 * The admin password under systemd, as the units run: write-env.mjs writes the env files, the real
 * controller starts with the files its unit names (outpost-controller.service), and forget-admin.js
 * runs as the unit's ExecStartPost does. The clear password must be gone from controller.env always,
 * and from secrets.json and controller.first-start.env once the controller has made the user.
 */
const CI = process.env.CI === 'true';
const DB_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const database = `outpost_first_start_${process.pid}`;
const work = mkdtempSync(join(tmpdir(), 'outpost-first-start-'));
const data = join(work, 'data');
const etc = join(work, 'etc');
let controller: ChildProcess | undefined;
let ready = false;

function psql(sql: string) {
  return spawnSync('psql', ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', DB_URL, '-c', sql], {
    encoding: 'utf8',
  });
}

/** An EnvironmentFile= as systemd reads it: KEY=value lines. */
function envFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** The unit's environment: its EnvironmentFile= lines in order (later files win). */
function unitEnv(): Record<string, string> {
  const unit = readFileSync(join(root, 'infra', 'systemd', 'outpost-controller.service'), 'utf8');
  const files = [...unit.matchAll(/^EnvironmentFile=-?\/etc\/outpost\/(.+)$/gm)].map((m) => m[1]!);
  return Object.assign({}, ...files.map((f) => envFile(join(etc, f))));
}

function writeEnv() {
  const r = spawnSync(
    process.execPath,
    [join(root, 'infra', 'systemd', 'write-env.mjs'), '--data-dir', data, '--out', etc],
    {
      encoding: 'utf8',
    },
  );
  expect(r.status, r.stderr).toBe(0);
}

function login(port: number, ca: string, password: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ username: 'admin', password });
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/auth/login',
        method: 'POST',
        ca,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(() => {
  ready = spawnSync('sh', ['-c', 'command -v psql']).status === 0 && psql('select 1').status === 0;
  if (!ready) return;
  psql(`drop database if exists ${database} with (force)`);
  psql(`create database ${database}`);
});

afterAll(async () => {
  if (controller && controller.exitCode === null) {
    controller.kill('SIGTERM');
    await new Promise((r) => controller!.once('exit', r));
  }
  if (ready) psql(`drop database if exists ${database} with (force)`);
  rmSync(work, { recursive: true, force: true });
});

describe('the admin password under systemd', () => {
  it('is never in controller.env, and leaves secrets.json and controller.first-start.env once the controller has the user', {
    timeout: 120_000,
  }, async (ctx) => {
    if (!ready) {
      if (CI) throw new Error(`PostgreSQL not reachable at ${DB_URL}`);
      ctx.skip('PostgreSQL not reachable');
    }
    mkdirSync(etc, { recursive: true });
    // TLS on, on loopback; the machine's broker under a topic prefix of this run's own.
    writeFileSync(
      join(etc, 'outpost.env'),
      `DATA_DIR=${data}\nHOST=127.0.0.1\nTLS=on\nMQTT_URL=mqtt://127.0.0.1:1883\nMQTT_TOPIC_PREFIX=first-start-${process.pid}\nLOG_LEVEL=warn\n`,
    );
    writeEnv();
    const secrets = JSON.parse(readFileSync(join(data, 'secrets.json'), 'utf8'));
    const password: string = secrets.ADMIN_PASSWORD;
    expect(password).toMatch(/^.{10,}$/);
    expect(readFileSync(join(etc, 'controller.env'), 'utf8')).not.toContain(password);
    expect(readFileSync(join(etc, 'controller.env'), 'utf8')).not.toContain('ADMIN_PASSWORD');
    const firstStart = join(etc, 'controller.first-start.env');
    expect(readFileSync(firstStart, 'utf8')).toContain(`ADMIN_PASSWORD=${password}\n`);
    expect(statSync(firstStart).mode & 0o777).toBe(0o600);

    const u = new URL(DB_URL);
    u.pathname = `/${database}`;
    const port = await freePort();
    const env = {
      ...unitEnv(),
      DATABASE_URL: u.toString(),
      CONTROLLER_PORT: String(port),
      NODE_ENV: 'production',
    };
    controller = spawn(process.execPath, [join(root, 'services', 'controller', 'dist', 'main.js')], {
      cwd: join(root, 'services', 'controller'),
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    controller.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    // The ExecStartPost: as root, with the unit's environment and the main process's pid.
    const post = spawnSync(process.execPath, [join(root, 'scripts', 'dist', 'forget-admin.js'), firstStart], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, ...env, MAINPID: String(controller.pid) },
      timeout: 90_000,
    });
    expect(post.status, `${post.stdout}${post.stderr}${stderr}`).toBe(0);
    expect(post.stdout).toMatch(
      /the admin password is no longer kept in .*secrets\.json nor .*first-start\.env\n$/,
    );
    expect(existsSync(firstStart)).toBe(false);
    const after = readFileSync(join(data, 'secrets.json'), 'utf8');
    expect(after).not.toContain(password);
    expect(JSON.parse(after).ADMIN_PASSWORD_REMOVED).toMatch(/^\d{4}-/);
    // The user exists with that password: only its hash is kept, in the controller's database.
    const ca = readFileSync(join(data, 'tls', 'trust.pem'), 'utf8');
    expect(await login(port, ca, password)).toBe(200);
    expect(await login(port, ca, `${password}x`)).toBe(401);

    // An upgrade (write-env.mjs again) brings the password back nowhere.
    writeEnv();
    expect(existsSync(firstStart)).toBe(false);
    expect(readFileSync(join(etc, 'controller.env'), 'utf8')).not.toContain('ADMIN_PASSWORD');
    // A later start finds nothing to forget and returns at once.
    const again = spawnSync(
      process.execPath,
      [join(root, 'scripts', 'dist', 'forget-admin.js'), firstStart],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...env },
        timeout: 10_000,
      },
    );
    expect(again.status).toBe(0);
    expect(again.stdout).toBe('');
  });
});
