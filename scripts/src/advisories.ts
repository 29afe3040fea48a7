import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An offline dependency audit. `npm audit` needs an advisory service these machines cannot reach, so
 * the GitHub Advisory Database (OSV format, https://github.com/github/advisory-database) is reduced on
 * a connected machine to the high and critical npm advisories of the packages in package-lock.json
 * (security/advisories.json, kept in the repo), and the production tree is checked against that.
 */

export type Severity = 'HIGH' | 'CRITICAL';
const KEPT: ReadonlySet<string> = new Set(['HIGH', 'CRITICAL']);

/** One affected range: introduced ≤ v < fixed, or introduced ≤ v ≤ last_affected, or from introduced on. */
export interface Range {
  introduced: string;
  fixed?: string;
  last_affected?: string;
}

export interface Advisory {
  id: string;
  summary: string;
  severity: Severity;
  package: string;
  ranges: Range[];
  /** Versions the advisory lists one by one (besides its ranges). */
  versions: string[];
}

export interface Snapshot {
  /** Where the entries came from and when they were reduced; null source: none could be read. */
  source: string | null;
  reduced_at: string;
  /** The package names the reduction looked for (every package in the lockfile then). */
  packages: string[];
  advisories: Advisory[];
}

/** An OSV entry, the fields read here. */
interface OsvEntry {
  id?: string;
  summary?: string;
  withdrawn?: string;
  database_specific?: { severity?: string };
  affected?: {
    package?: { ecosystem?: string; name?: string };
    ranges?: { type?: string; events?: Record<string, string>[] }[];
    versions?: string[];
  }[];
}

/** Every `*.json` under `dir` (the database's `advisories/github-reviewed` tree). */
export function* osvFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* osvFiles(path);
    else if (name.endsWith('.json')) yield path;
  }
}

/** The high and critical, not withdrawn, npm advisories of one OSV entry for the named packages. */
export function reduceEntry(entry: OsvEntry, wanted: ReadonlySet<string>): Advisory[] {
  const severity = entry.database_specific?.severity?.toUpperCase();
  if (!entry.id || entry.withdrawn || !severity || !KEPT.has(severity)) return [];
  const out: Advisory[] = [];
  for (const a of entry.affected ?? []) {
    const name = a.package?.name;
    if (a.package?.ecosystem !== 'npm' || !name || !wanted.has(name)) continue;
    const ranges: Range[] = [];
    for (const r of a.ranges ?? []) {
      if (r.type !== 'SEMVER' && r.type !== 'ECOSYSTEM') continue;
      let open: Range | null = null;
      for (const ev of r.events ?? []) {
        if (ev.introduced !== undefined) {
          if (open) ranges.push(open);
          open = { introduced: ev.introduced };
        } else if (open && ev.fixed !== undefined) {
          ranges.push({ ...open, fixed: ev.fixed });
          open = null;
        } else if (open && ev.last_affected !== undefined) {
          ranges.push({ ...open, last_affected: ev.last_affected });
          open = null;
        }
      }
      if (open) ranges.push(open);
    }
    out.push({
      id: entry.id,
      summary: (entry.summary ?? '').slice(0, 200),
      severity: severity as Severity,
      package: name,
      ranges,
      versions: a.versions ?? [],
    });
  }
  return out;
}

/** Reduces the OSV files to a snapshot for the named packages. */
export function reduceDatabase(
  files: Iterable<string>,
  wanted: ReadonlySet<string>,
  source: string,
): Snapshot {
  const advisories: Advisory[] = [];
  for (const file of files) {
    let entry: OsvEntry;
    try {
      entry = JSON.parse(readFileSync(file, 'utf8')) as OsvEntry;
    } catch {
      continue; // not an entry (a README, a broken file): nothing to keep
    }
    advisories.push(...reduceEntry(entry, wanted));
  }
  advisories.sort((a, b) => a.package.localeCompare(b.package) || a.id.localeCompare(b.id));
  return {
    source,
    reduced_at: new Date().toISOString().slice(0, 10),
    packages: [...wanted].sort(),
    advisories,
  };
}

/** A package installed by package-lock.json. */
export interface Installed {
  name: string;
  version: string;
  /** Its place in the tree (`node_modules/a/node_modules/b`). */
  path: string;
}

interface LockEntry {
  version?: string;
  name?: string;
  dev?: boolean;
  devOptional?: boolean;
  link?: boolean;
}

/** Every package of the lockfile; `production` leaves out what only development installs. */
export function lockedPackages(
  lock: { packages?: Record<string, LockEntry> },
  production: boolean,
): Installed[] {
  const out: Installed[] = [];
  for (const [path, e] of Object.entries(lock.packages ?? {})) {
    const at = path.lastIndexOf('node_modules/');
    if (at === -1 || e.link || !e.version) continue;
    if (production && (e.dev || e.devOptional)) continue;
    out.push({ name: e.name ?? path.slice(at + 'node_modules/'.length), version: e.version, path });
  }
  return out;
}

/**
 * Orders two exact semver versions (lockfiles hold exact ones): major.minor.patch numerically, a
 * pre-release before its release, pre-release identifiers numerically or by text. Ranges are not
 * parsed: the advisories' bounds are exact versions too.
 */
export function compareVersions(a: string, b: string): number {
  const split = (v: string) => {
    const [core = '', pre] = v.replace(/^v/, '').split('+')[0]!.split(/-(.*)/s);
    return { core: core.split('.').map((n) => Number(n) || 0), pre: pre ? pre.split('.') : [] };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < 3; i++)
    if ((x.core[i] ?? 0) !== (y.core[i] ?? 0)) return (x.core[i] ?? 0) - (y.core[i] ?? 0);
  if (!x.pre.length || !y.pre.length) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined || q === undefined) return p === undefined ? -1 : 1;
    if (p === q) continue;
    const [np, nq] = [Number(p), Number(q)];
    if (Number.isInteger(np) && Number.isInteger(nq)) return np - nq;
    return p < q ? -1 : 1;
  }
  return 0;
}

export function affects(advisory: Advisory, version: string): boolean {
  if (advisory.versions.includes(version)) return true;
  return advisory.ranges.some(
    (r) =>
      compareVersions(version, r.introduced === '0' ? '0.0.0-0' : r.introduced) >= 0 &&
      (r.fixed === undefined || compareVersions(version, r.fixed) < 0) &&
      (r.last_affected === undefined || compareVersions(version, r.last_affected) <= 0),
  );
}

export interface Finding {
  advisory: Advisory;
  installed: Installed;
}

/** A finding looked at and accepted, with why: one advisory at one place in the tree. */
export interface Accepted {
  id: string;
  path: string;
  reason: string;
}

/** The high and critical advisories that affect a package of the production tree, less the accepted. */
export function audit(
  snapshot: Snapshot,
  installed: readonly Installed[],
  accepted: readonly Accepted[] = [],
): Finding[] {
  const ok = new Set(accepted.map((a) => `${a.id} ${a.path}`));
  const byName = new Map<string, Advisory[]>();
  for (const a of snapshot.advisories) byName.set(a.package, [...(byName.get(a.package) ?? []), a]);
  const out: Finding[] = [];
  for (const p of installed)
    for (const a of byName.get(p.name) ?? [])
      if (affects(a, p.version) && !ok.has(`${a.id} ${p.path}`)) out.push({ advisory: a, installed: p });
  return out;
}

/** Production packages the snapshot was not reduced for (added since): refresh it to cover them. */
export function uncovered(snapshot: Snapshot, installed: readonly Installed[]): string[] {
  const known = new Set(snapshot.packages);
  return [...new Set(installed.map((p) => p.name).filter((n) => !known.has(n)))].sort();
}
