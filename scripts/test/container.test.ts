/**
 * The container image, built and run here with no container registry: a Debian 13 base made by
 * debootstrap (scripts/container-base.sh, cached under /var/cache/outpost-test), the Dockerfile built
 * by podman from the release bundle, then infra/docker-compose.yml's simulator profile started with
 * podman-compose on the host network, bound to 127.0.0.1. Checked as a user would: /health, a login, and
 * NMEA arriving over UDP on loopback. Needs root (apt-get, debootstrap, podman as root); elsewhere it is
 * skipped with the reason printed.
 */
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exclusive } from './helpers/exclusive.js';
import { freePort, root, sleep, until } from './helpers/processes.js';

const CACHE = process.env.OUTPOST_TEST_CACHE ?? '/var/cache/outpost-test';
const IMAGE = 'localhost/outpost:test';
const USERNAME = 'rig';
const PASSWORD = 'container-rig-password';
const compose = join(root, 'infra', 'docker-compose.yml');

const skipReason = (() => {
  if (process.platform !== 'linux') return 'containers are built with podman on Linux only';
  if (process.getuid?.() !== 0)
    return 'needs root: apt-get installs podman and debootstrap builds the base image (rootless podman would need user namespaces and a prepared base)';
  return null;
})();
if (skipReason) console.log(`container test skipped: ${skipReason}`);

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = root): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => {
      stdout += d;
    });
    p.stderr.on('data', (d) => {
      stderr += d;
    });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
async function ok(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = root): Promise<string> {
  const r = await run(cmd, args, env, cwd);
  if (r.code !== 0)
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${(r.stderr || r.stdout).slice(-3000)}`);
  return r.stdout;
}
const seconds = (t: number) => Math.round((performance.now() - t) / 100) / 10;

const figures: { name: string; figure: number; unit: string; context: string }[] = [];
let tools: Record<string, string> = {};
/** podman's global options: the OCI runtime that works on this host. */
let podmanArgs: string[] = [];
/** Per-container options this host needs (rlimits podman may not raise here, no systemd for health timers). */
let runArgs: string[] = [];
let project = '';
let tmp = '';

const podmanCompose = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  run(
    '/usr/bin/python3',
    [
      tools.PODMAN_COMPOSE as string,
      '-f',
      compose,
      '-p',
      project,
      '--in-pod',
      'false',
      '--podman-args',
      podmanArgs.join(' '),
      '--podman-run-args',
      runArgs.join(' '),
      ...args,
    ],
    { PYTHONPATH: tools.PODMAN_COMPOSE_PYTHONPATH, ...env },
    join(root, 'infra'),
  );

let release: (() => void) | undefined;

describe.skipIf(skipReason !== null)('container image', () => {
  beforeAll(async () => {
    // The other container test builds from the same cached base and podman store: one at a time.
    release = await exclusive('containers');
    tmp = mkdtempSync(join(tmpdir(), 'outpost-container-'));
    project = `outposttest${process.pid}`;
    let t = performance.now();
    const toolOut = await ok(join(root, 'scripts', 'container-tools.sh'), ['--cache', CACHE]);
    tools = Object.fromEntries(
      toolOut
        .trim()
        .split('\n')
        .map((l) => l.split('=', 2) as [string, string]),
    );
    figures.push({
      name: 'tools (podman, runc, compose parsers)',
      figure: seconds(t),
      unit: 's',
      context: 'apt-get or cached',
    });

    t = performance.now();
    const base = (await ok(join(root, 'scripts', 'container-base.sh'), ['--cache', CACHE]))
      .trim()
      .split('\n')
      .pop();
    figures.push({
      name: 'Debian 13 base image (debootstrap + nodejs/npm, import)',
      figure: seconds(t),
      unit: 's',
      context: 'cached root filesystem reused when present',
    });

    // crun refuses a cgroup v1/v2 hybrid host; runc runs there. Lower rlimits: a host may not let podman
    // raise them (no CAP_SYS_RESOURCE), and the image needs few files and processes.
    const nofile = Math.min(8192, Number((await run('sh', ['-c', 'ulimit -Hn'])).stdout.trim()) || 8192);
    runArgs = ['--ulimit', `nofile=${nofile}:${nofile}`, '--ulimit', 'nproc=4096:4096'];
    if (!existsSync('/run/systemd/system')) {
      console.log(
        'container test: no systemd here, so podman cannot time the HEALTHCHECK; the test runs it with podman exec',
      );
      runArgs.push('--no-healthcheck');
    }
    for (const candidate of [[], ['--runtime', 'runc']]) {
      const probe = await run('podman', [
        ...candidate,
        'run',
        '--rm',
        '--network',
        'host',
        ...runArgs,
        base as string,
        'node',
        '-v',
      ]);
      if (probe.code === 0) {
        podmanArgs = candidate;
        break;
      }
      if (candidate.length) throw new Error(`podman cannot run a container here:\n${probe.stderr}`);
    }

    t = performance.now();
    // npm test has built the workspaces already (pretest), so the bundle is made without `prepackage`.
    await ok('node', [join(root, 'scripts', 'dist', 'package.js'), '--out', tmp]);
    figures.push({
      name: 'release bundle (scripts/dist/package.js)',
      figure: seconds(t),
      unit: 's',
      context: 'from the build npm test made',
    });
    t = performance.now();
    const bundle = readdirSync(tmp).find((f) => /^outpost-.*\.tgz$/.test(f)) as string;
    // The build context is the bundle alone, as .dockerignore makes it from a checkout.
    const ctx = join(tmp, 'ctx');
    mkdirSync(ctx);
    copyFileSync(join(tmp, bundle), join(ctx, bundle));
    copyFileSync(join(root, 'Dockerfile'), join(ctx, 'Dockerfile'));
    const ca = process.env.NODE_EXTRA_CA_CERTS;
    const caArgs =
      ca && existsSync(ca)
        ? [
            '-v',
            `${ca}:/run/outpost-build-ca.pem:ro`,
            '--build-arg',
            'NODE_EXTRA_CA_CERTS=/run/outpost-build-ca.pem',
          ]
        : [];
    await ok('podman', [
      ...podmanArgs,
      'build',
      '--format',
      'docker',
      '--network',
      'host',
      ...runArgs.filter((a) => a !== '--no-healthcheck'),
      '--build-arg',
      `BASE=${base}`,
      ...caArgs,
      '-t',
      IMAGE,
      ctx,
    ]);
    // The install stage's image and the previous run's image are of no further use (npm's cache mount keeps the downloads).
    await run('podman', ['image', 'prune', '-f', '--filter', 'label=org.outpost.stage=install']);
    await run('podman', ['image', 'prune', '-f', '--filter', 'label=org.opencontainers.image.title=Outpost']);
    figures.push({
      name: 'podman build (npm ci --omit=dev inside)',
      figure: seconds(t),
      unit: 's',
      context: `FROM ${base}`,
    });
  }, 45 * 60_000);

  afterAll(async () => {
    if (project && tools.PODMAN_COMPOSE) await podmanCompose(['--profile', 'simulator', 'down', '-v']);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    release?.();
    if (process.env.CONTAINER_BENCH_OUT && figures.length) {
      writeFileSync(
        process.env.CONTAINER_BENCH_OUT,
        `${JSON.stringify({ bench: 'container', at: new Date().toISOString(), machine: { node: process.version }, results: figures }, null, 2)}\n`,
      );
    }
  }, 120_000);

  it('the image runs as a non-root user, keeps /data as a volume and checks /health', async () => {
    const [image] = JSON.parse(await ok('podman', ['image', 'inspect', IMAGE])) as {
      Size: number;
      Healthcheck?: { Test: string[] };
      Config: { User: string; Volumes: Record<string, unknown>; Healthcheck?: { Test: string[] } };
    }[];
    const cfg = image?.Config as NonNullable<typeof image>['Config'];
    expect(cfg.User).toBe('outpost');
    expect(Object.keys(cfg.Volumes)).toContain('/data');
    expect((image?.Healthcheck ?? cfg.Healthcheck)?.Test.join(' ')).toContain('healthcheck.mjs');
    const bytes = image?.Size ?? 0;
    figures.push({
      name: 'image size',
      figure: Math.round(bytes / 1e5) / 10,
      unit: 'MB',
      context: 'uncompressed, Debian 13 base with its nodejs and npm',
    });
  });

  it(
    'the simulator profile starts: /health 200, a login, and NMEA over UDP to 127.0.0.1',
    async () => {
      const udp = createSocket('udp4');
      const lines: string[] = [];
      udp.on('message', (m) => lines.push(...m.toString('latin1').split('\r\n').filter(Boolean)));
      await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
      const nmeaPort = udp.address().port;
      const port = await freePort();
      const env = {
        OUTPOST_IMAGE: IMAGE,
        HOST: '127.0.0.1',
        SIMULATOR_PORT: String(port),
        MQTT_PORT: String(await freePort()),
        MQTT_WS_PORT: String(await freePort()),
        USERNAME,
        PASSWORD,
        AUTO_START_MODE: 'sender',
        AUTO_START_TARGET_IP: '127.0.0.1',
        AUTO_START_TARGET_PORT: String(nmeaPort),
      };
      try {
        const t = performance.now();
        const up = await podmanCompose(['--profile', 'simulator', 'up', '-d', 'simulator'], env);
        expect(up.code, up.stderr).toBe(0);
        const url = `http://127.0.0.1:${port}`;
        await until(
          'the container answers /health',
          async () => (await fetch(`${url}/health`)).status === 200,
          180_000,
        );
        figures.push({
          name: 'compose up to /health 200 (simulator profile)',
          figure: seconds(t),
          unit: 's',
          context: 'simulator and its embedded broker',
        });
        expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'healthy' });

        const login = await fetch(`${url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: USERNAME, password: PASSWORD }),
        });
        expect(login.status).toBe(200);
        const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
        expect((await fetch(`${url}/api/status`)).status).toBe(401);
        expect((await fetch(`${url}/api/status`, { headers: { cookie } })).status).toBe(200);

        const line = await until(
          'an NMEA line over UDP',
          () => lines.find((l) => /^\$G[PN][A-Z]{3},/.test(l)),
          60_000,
        );
        const [body, sum] = line.slice(1).split('*') as [string, string];
        let x = 0;
        for (const ch of body) x ^= ch.charCodeAt(0);
        expect(sum.toUpperCase()).toBe(x.toString(16).toUpperCase().padStart(2, '0'));

        const container = `${project}_simulator_1`;
        const hc = await run('podman', [
          ...podmanArgs,
          'exec',
          container,
          'node',
          '/opt/outpost/infra/container/healthcheck.mjs',
        ]);
        expect(hc.code, hc.stderr).toBe(0);
        expect(hc.stdout).toContain('healthy: 1 service');

        // Idle memory: the container's cgroup as podman reports it, and its processes' RSS.
        await sleep(10_000);
        const mem = (
          await run('podman', [...podmanArgs, 'stats', '--no-stream', '--format', '{{.MemUsage}}', container])
        ).stdout.trim();
        const top = await run('podman', [...podmanArgs, 'top', container, 'rss']);
        const rssKb = top.stdout
          .split('\n')
          .slice(1)
          .reduce((s, l) => s + (Number(l.trim()) || 0), 0);
        const usage = /^([\d.]+)\s*([kMG]B)/.exec(mem);
        if (usage) {
          const mb = Number(usage[1]) * ({ kB: 1e-3, MB: 1, GB: 1e3 }[usage[2] as string] ?? 1);
          figures.push({
            name: 'idle memory, simulator profile (podman stats)',
            figure: Math.round(mb * 10) / 10,
            unit: 'MB',
            context: 'launcher, embedded broker and simulator, 10 s after start',
          });
        }
        if (rssKb)
          figures.push({
            name: 'idle RSS sum, simulator profile',
            figure: Math.round(rssKb / 102.4) / 10,
            unit: 'MB',
            context: 'launcher + broker + simulator processes',
          });
      } finally {
        udp.close();
      }
    },
    10 * 60_000,
  );

  it('docker compose validates the simulator and site profiles, each with its Outpost service', async () => {
    const env = { OUTPOST_DB_PASSWORD: '' };
    for (const [profile, service] of [
      ['simulator', 'simulator'],
      ['site', 'outpost'],
    ] as const) {
      const services = await ok(
        tools.DOCKER_COMPOSE as string,
        ['-f', compose, '--profile', profile, 'config', '--services'],
        env,
      );
      expect(services.split('\n')).toContain(service);
      const cfg = await ok(
        tools.DOCKER_COMPOSE as string,
        ['-f', compose, '--profile', profile, 'config', '--format', 'json'],
        env,
      );
      const svc = (
        JSON.parse(cfg) as {
          services: Record<string, { network_mode?: string; volumes?: { target: string }[] }>;
        }
      ).services[service];
      expect(svc?.network_mode).toBe('host');
      expect(svc?.volumes?.map((v) => v.target)).toContain('/data');
    }
    // Without a profile the Outpost services stay out, as before.
    const plain = await ok(tools.DOCKER_COMPOSE as string, ['-f', compose, 'config', '--services'], env);
    expect(plain.split('\n')).not.toContain('outpost');
  });
});
