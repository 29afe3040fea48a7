import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type Accepted,
  affects,
  audit,
  compareVersions,
  lockedPackages,
  osvFiles,
  reduceDatabase,
  type Snapshot,
} from '../src/advisories.js';
import { root } from './helpers/processes.js';

/**
 * The offline dependency audit: the advisory database (OSV) reduced to a snapshot kept in the repo,
 * and the production tree of package-lock.json checked against it. The last test is the CI step: a
 * high or critical advisory affecting a production package fails it.
 */
const FIXTURES = fileURLToPath(new URL('./fixtures/advisories/', import.meta.url));
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('reducing an OSV advisory database', () => {
  const lock = json(join(FIXTURES, 'package-lock.json'));
  const wanted = new Set(lockedPackages(lock, false).map((p) => p.name));
  const snapshot = reduceDatabase(osvFiles(join(FIXTURES, 'osv')), wanted, 'fixture');

  it('keeps the high and critical npm advisories of the lockfile packages only', () => {
    expect(snapshot.advisories.map((a) => [a.id, a.package, a.severity])).toEqual([
      ['GHSA-test-0001-high', 'evil-pkg', 'HIGH'],
      ['GHSA-test-0002-crit', 'other-pkg', 'CRITICAL'],
    ]);
    expect(snapshot.packages).toEqual(['evil-pkg', 'other-pkg', 'safe-pkg']);
  });

  it('finds an affected production package; a dev-only copy, a fixed version or an accepted finding pass', () => {
    const production = lockedPackages(lock, true);
    expect(production.map((p) => p.path)).toEqual([
      'node_modules/evil-pkg',
      'node_modules/other-pkg',
      'node_modules/safe-pkg',
    ]);
    const found = audit(snapshot, production);
    expect(found.map((f) => `${f.advisory.id} ${f.installed.name}@${f.installed.version}`)).toEqual([
      'GHSA-test-0001-high evil-pkg@1.2.0',
      'GHSA-test-0002-crit other-pkg@2.4.0',
    ]);
    const fixed = production.map((p) => (p.name === 'evil-pkg' ? { ...p, version: '1.2.3' } : p));
    expect(audit(snapshot, fixed).map((f) => f.installed.name)).toEqual(['other-pkg']);
    const accepted: Accepted[] = [
      { id: 'GHSA-test-0002-crit', path: 'node_modules/other-pkg', reason: 'test' },
    ];
    expect(audit(snapshot, fixed, accepted)).toEqual([]);
  });

  it('orders versions as semver does and reads each kind of range', () => {
    expect(compareVersions('1.10.0', '1.9.9')).toBeGreaterThan(0);
    expect(compareVersions('2.0.0-rc.1', '2.0.0')).toBeLessThan(0);
    expect(compareVersions('2.0.0-rc.10', '2.0.0-rc.9')).toBeGreaterThan(0);
    const [, crit] = snapshot.advisories;
    expect(['1.9.9', '2.0.0', '2.4.0', '2.4.1'].map((v) => affects(crit!, v))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });
});

describe('the production tree against the snapshot in the repo (the CI step)', () => {
  const snapshot = json(join(root, 'scripts/advisories/snapshot.json')) as Snapshot;
  const accepted = json(join(root, 'scripts/advisories/accepted.json')) as Accepted[];
  const production = lockedPackages(json(join(root, 'package-lock.json')), true);

  it('no high or critical advisory affects a production package, beyond the ones accepted with a reason', () => {
    const found = audit(snapshot, production, accepted);
    expect(
      found.map((f) => `${f.advisory.severity} ${f.advisory.id} ${f.installed.path}@${f.installed.version}`),
    ).toEqual([]);
    for (const a of accepted) expect(a.reason.length, a.id).toBeGreaterThan(40);
  });

  it('every accepted finding is still one (an entry for a fixed or removed package is dropped)', () => {
    const all = audit(snapshot, production);
    for (const a of accepted)
      expect(
        all.some((f) => f.advisory.id === a.id && f.installed.path === a.path),
        `${a.id} ${a.path}`,
      ).toBe(true);
  });
});
