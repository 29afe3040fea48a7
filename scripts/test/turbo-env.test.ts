/**
 * What `npm test` (turbo, in its strict environment mode) hands every task from the caller's
 * environment. A host behind a TLS-inspecting proxy names the proxy's CA in NODE_EXTRA_CA_CERTS; a
 * task that does not get it cannot pass it on (container.test.ts mounts it into the image build), and
 * npm in the build then refuses the proxy's chain with SELF_SIGNED_CERT_IN_CHAIN.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCa } from '@outpost/runtime/pki';
import { afterAll, expect, it } from 'vitest';
import { root } from './helpers/processes.js';

const dir = mkdtempSync(join(tmpdir(), 'outpost-turbo-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('npm test passes NODE_EXTRA_CA_CERTS through to each package task', { timeout: 60_000 }, async () => {
  const caFile = join(dir, 'proxy-ca.pem');
  writeFileSync(caFile, (await createCa({ commonName: 'Proxy Test CA' })).cert);
  // A workspace of one package, run by this repository's turbo and turbo.json.
  const pkg = join(dir, 'packages', 'probe');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'turbo-env-probe',
      private: true,
      workspaces: ['packages/*'],
      packageManager: `npm@${spawnSync('npm', ['-v'], { encoding: 'utf8' }).stdout.trim()}`,
    }),
  );
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: 'probe',
      version: '1.0.0',
      scripts: { test: 'node -e "console.log(\'CA=\' + process.env.NODE_EXTRA_CA_CERTS)"' },
    }),
  );
  copyFileSync(join(root, 'turbo.json'), join(dir, 'turbo.json'));
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, CI: 'true' };
  // No dependencies: the lockfile is written without the registry.
  const install = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    env,
    encoding: 'utf8',
  });
  expect(install.status, install.stderr).toBe(0);
  spawnSync('git', ['init', '-q', '.'], { cwd: dir });
  const turbo = spawnSync(join(root, 'node_modules', '.bin', 'turbo'), ['run', 'test', '--concurrency=1'], {
    cwd: dir,
    env: { ...env, NODE_EXTRA_CA_CERTS: caFile },
    encoding: 'utf8',
  });
  expect(turbo.status, `${turbo.stdout}\n${turbo.stderr}`).toBe(0);
  expect(turbo.stdout).toContain(`CA=${caFile}`);
});
