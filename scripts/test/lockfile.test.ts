import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from './helpers/processes.js';

/**
 * `npm ci` refuses a lockfile that lacks another platform's optional packages, and one written on a
 * single machine easily does. The lockfile must install on every platform users run: the build box,
 * a Pi (arm64 and armv7), a Mac.
 */
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { optionalDependencies?: Record<string, string>; os?: string[]; cpu?: string[] }>;
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The manifests npm ci reads: the root's, every workspace's, and the lockfile. */
function manifestsOnly(): string {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-lock-'));
  dirs.push(dir);
  cpSync(root, dir, {
    recursive: true,
    filter: (src) => {
      const rel = src.slice(root.length);
      if (/\/(node_modules|dist|\.git|\.turbo|\.cache|data)(\/|$)/.test(rel)) return false;
      return !/\.[a-z]+$/.test(rel) || /\/package(-lock)?\.json$/.test(rel);
    },
  });
  return dir;
}

describe('package-lock.json', () => {
  it('lists every platform package that an installed package names as optional', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        const nested = `${path}/node_modules/${name}`;
        if (!lock.packages[nested] && !lock.packages[`node_modules/${name}`])
          missing.push(`${path} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it.each([
    ['linux', 'x64'],
    ['linux', 'arm64'],
    ['linux', 'arm'],
    ['darwin', 'arm64'],
    ['darwin', 'x64'],
  ])('npm ci accepts it on %s %s', { timeout: 60_000 }, (os, cpu) => {
    const dir = manifestsOnly();
    const res = spawnSync(
      'npm',
      [
        'ci',
        '--dry-run',
        '--offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        `--os=${os}`,
        `--cpu=${cpu}`,
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(res.status, res.stderr).toBe(0);
  });
});

describe('what the lockfile installs', () => {
  it('one PostgreSQL driver for the whole system: node-postgres, never postgres.js beside it', () => {
    const drivers = Object.keys(lock.packages).filter((p) => /(^|\/)node_modules\/(pg|postgres)$/.test(p));
    expect(drivers.map((p) => p.replace(/^.*node_modules\//, ''))).toEqual(['pg']);
  });
});
