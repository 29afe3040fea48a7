import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Accepted,
  audit,
  lockedPackages,
  osvFiles,
  reduceDatabase,
  type Snapshot,
  uncovered,
} from './advisories.js';

/**
 * `node scripts/dist/advisories-main.js check`: fails (exit 1) on a high or critical advisory in the
 * snapshot that affects a package of the production tree.
 * `node scripts/dist/advisories-main.js reduce <advisory-database>/advisories/github-reviewed`: on a
 * connected machine, writes a new snapshot for every package in package-lock.json.
 */
const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SNAPSHOT = join(root, 'scripts', 'advisories', 'snapshot.json');
const ACCEPTED = join(root, 'scripts', 'advisories', 'accepted.json');
const lock = () => JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

const [command, dir] = process.argv.slice(2);
if (command === 'reduce' && dir) {
  const wanted = new Set(lockedPackages(lock(), false).map((p) => p.name));
  const snapshot = reduceDatabase(osvFiles(dir), wanted, 'https://github.com/github/advisory-database');
  writeFileSync(SNAPSHOT, `${JSON.stringify(snapshot, null, 2)}\n`);
  process.stdout.write(
    `${snapshot.advisories.length} high or critical advisories for ${wanted.size} packages\n`,
  );
} else if (command === 'check') {
  const snapshot = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Snapshot;
  const production = lockedPackages(lock(), true);
  const accepted = JSON.parse(readFileSync(ACCEPTED, 'utf8')) as Accepted[];
  const findings = audit(snapshot, production, accepted);
  for (const f of findings)
    process.stdout.write(
      `${f.advisory.severity} ${f.advisory.id} ${f.installed.name}@${f.installed.version} (${f.installed.path}): ${f.advisory.summary}\n`,
    );
  const missing = uncovered(snapshot, production);
  if (missing.length)
    process.stdout.write(
      `${missing.length} production packages are not in the snapshot (reduce it again to cover them), e.g. ${missing.slice(0, 8).join(', ')}\n`,
    );
  process.stdout.write(
    `snapshot of ${snapshot.reduced_at} (${snapshot.source ?? 'no database read'}): ${findings.length} finding(s) in ${production.length} production packages\n`,
  );
  process.exit(findings.length ? 1 : 0);
} else {
  process.stderr.write(
    'usage: advisories-main.js check | reduce <advisory-database>/advisories/github-reviewed\n',
  );
  process.exit(2);
}
