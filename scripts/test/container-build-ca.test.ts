/**
 * The image build behind a TLS-inspecting proxy, as the Dockerfile's comment tells an operator to run
 * it: the proxy's CA mounted into the build (`-v <ca>:/run/outpost-build-ca.pem:ro`) and named by
 * `--build-arg NODE_EXTRA_CA_CERTS=/run/outpost-build-ca.pem`. The proxy is a local one with a CA of its
 * own (helpers/inspecting-proxy.ts): it answers registry.npmjs.org itself and forwards nothing, so the
 * test needs no network and passes only when npm in the build trusts that CA.
 *
 * It builds the real Dockerfile's install stage (`--target install`, the stage that runs `npm ci`)
 * on the same Debian 13 base as container.test.ts, from a bundle of the same shape whose lockfile
 * holds one package the proxy serves: the same RUN line, the same npm, the same environment, only a
 * smaller package list than the release bundle's. Root on Linux only, like the container test.
 */
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exclusive } from './helpers/exclusive.js';
import { type InspectingProxy, inspectingProxy } from './helpers/inspecting-proxy.js';
import { root } from './helpers/processes.js';

const CACHE = process.env.OUTPOST_TEST_CACHE ?? '/var/cache/outpost-test';
const skipReason = (() => {
  if (process.platform !== 'linux') return 'containers are built with podman on Linux only';
  if (process.getuid?.() !== 0) return 'needs root: podman as root and the debootstrapped base image';
  return null;
})();
if (skipReason) console.log(`container build CA test skipped: ${skipReason}`);

interface Ran {
  code: number | null;
  out: string;
}
function run(cmd: string, args: string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // No proxy of the host's own: the build must reach the registry through the test's proxy alone.
    const env = { ...process.env };
    for (const k of ['http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'all_proxy'])
      delete env[k];
    const p = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.stderr.on('data', (d) => {
      out += d;
    });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out }));
  });
}
async function ok(cmd: string, args: string[]): Promise<string> {
  const r = await run(cmd, args);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}:\n${r.out.slice(-3000)}`);
  return r.out;
}

let tmp = '';
let base = '';
let podmanArgs: string[] = [];
/** As container.test.ts: rlimits podman may not raise on this host. */
let runArgs: string[] = [];
let proxy: InspectingProxy;
const TAG = `localhost/outpost-ca-test:${process.pid}`;

let release: (() => void) | undefined;

describe.skipIf(skipReason !== null)('image build behind a TLS-inspecting proxy', () => {
  beforeAll(async () => {
    // The other container test builds from the same cached base and podman store: one at a time.
    release = await exclusive('containers');
    tmp = mkdtempSync(join(tmpdir(), 'outpost-build-ca-'));
    await ok(join(root, 'scripts', 'container-tools.sh'), ['--cache', CACHE]);
    base = (await ok(join(root, 'scripts', 'container-base.sh'), ['--cache', CACHE]))
      .trim()
      .split('\n')
      .pop()!;
    const nofile = Math.min(8192, Number((await run('sh', ['-c', 'ulimit -Hn'])).out.trim()) || 8192);
    runArgs = ['--ulimit', `nofile=${nofile}:${nofile}`, '--ulimit', 'nproc=4096:4096'];
    // As container.test.ts: crun refuses some hosts, runc runs there.
    for (const candidate of [[], ['--runtime', 'runc']]) {
      const probe = await run('podman', [
        ...candidate,
        'run',
        '--rm',
        '--network',
        'host',
        ...runArgs,
        base,
        'true',
      ]);
      if (probe.code === 0) {
        podmanArgs = candidate;
        break;
      }
    }

    proxy = await inspectingProxy({ name: 'outpost-ca-probe', version: '1.0.0' });
    // The bundle as scripts/package.js lays it out (outpost-<version>/ with its lockfile), holding one
    // dependency from registry.npmjs.org that only the proxy can serve.
    const version = '0.0.0-ca';
    const top = join(tmp, 'bundle', `outpost-${version}`);
    mkdirSync(top, { recursive: true });
    const deps = { [proxy.pkg.name]: proxy.pkg.version };
    writeFileSync(
      join(top, 'package.json'),
      JSON.stringify({ name: 'outpost', version, dependencies: deps }),
    );
    writeFileSync(
      join(top, 'package-lock.json'),
      JSON.stringify({
        name: 'outpost',
        version,
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'outpost', version, dependencies: deps },
          [`node_modules/${proxy.pkg.name}`]: {
            version: proxy.pkg.version,
            resolved: proxy.pkg.resolved,
            integrity: proxy.pkg.integrity,
          },
        },
      }),
    );
    const ctx = join(tmp, 'ctx');
    mkdirSync(ctx);
    await ok('tar', [
      '-czf',
      join(ctx, `outpost-${version}.tgz`),
      '-C',
      join(tmp, 'bundle'),
      `outpost-${version}`,
    ]);
    copyFileSync(join(root, 'Dockerfile'), join(ctx, 'Dockerfile'));
  }, 45 * 60_000);

  afterAll(async () => {
    if (base) await run('podman', ['rmi', '-f', TAG]);
    await proxy?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    release?.();
  }, 120_000);

  const build = (ctx: string, extra: string[]) =>
    run('podman', [
      ...podmanArgs,
      'build',
      '--format',
      'docker',
      '--network',
      'host',
      ...runArgs,
      '--target',
      'install',
      '--build-arg',
      `BASE=${base}`,
      '--build-arg',
      `HTTPS_PROXY=${proxy.url}`,
      ...extra,
      '-t',
      TAG,
      ctx,
    ]);

  it(
    'without the proxy CA, npm on the base image refuses the proxy (the proxy really inspects)',
    async () => {
      // The build stage's npm on its image, once: a build retries a refused fetch for over a minute.
      const r = await run('podman', [
        ...podmanArgs,
        'run',
        '--rm',
        '--network',
        'host',
        ...runArgs,
        '-e',
        `HTTPS_PROXY=${proxy.url}`,
        base,
        'npm',
        'view',
        proxy.pkg.name,
        'version',
        '--fetch-retries=0',
        '--cache=/tmp/npm-cache',
      ]);
      expect(r.code).not.toBe(0);
      expect(r.out).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|self.signed certificate in certificate chain/i);
      expect(proxy.seen).toContain('CONNECT registry.npmjs.org:443');
    },
    10 * 60_000,
  );

  it(
    'with the CA passed as the Dockerfile documents, npm ci fetches through the proxy',
    async () => {
      // A system bundle with the proxy's CA added, as a host behind such a proxy has it.
      const hostBundle = '/etc/ssl/certs/ca-certificates.crt';
      const caFile = join(tmp, 'host-ca-bundle.pem');
      writeFileSync(
        caFile,
        `${existsSync(hostBundle) ? readFileSync(hostBundle, 'utf8') : ''}\n${proxy.caPem}`,
      );
      proxy.seen.length = 0;
      const r = await build(join(tmp, 'ctx'), [
        '-v',
        `${caFile}:/run/outpost-build-ca.pem:ro`,
        '--build-arg',
        'NODE_EXTRA_CA_CERTS=/run/outpost-build-ca.pem',
      ]);
      expect(r.code, r.out.slice(-3000)).toBe(0);
      expect(proxy.seen).toContain(`GET /${proxy.pkg.name}/-/${proxy.pkg.name}-${proxy.pkg.version}.tgz`);
      // The package the proxy served is in the stage's /opt/outpost.
      const listed = await ok('podman', [
        ...podmanArgs,
        'run',
        '--rm',
        ...runArgs,
        TAG,
        'node',
        '-p',
        `require('/opt/outpost/node_modules/${proxy.pkg.name}/package.json').version`,
      ]);
      expect(listed.trim()).toBe(proxy.pkg.version);
    },
    10 * 60_000,
  );
});
