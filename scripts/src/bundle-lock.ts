import type { Manifest } from './bundle-files.js';

/** Root scripts that run the installed stack; their pre-hooks (install and build) stay behind. */
export const RUNTIME_SCRIPTS = ['start', 'backup', 'restore', 'join-token'];

/** Lifecycle scripts npm runs at install time, which a workspace keeps if it has them. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

/** Fields of package.json that only matter on a development checkout. */
const DEV_FIELDS = ['devDependencies', 'packageManager', 'files'];

function without(manifest: Manifest, fields: string[]): Manifest {
  const out: Manifest = { ...manifest };
  for (const f of fields) delete out[f];
  return out;
}

function pick(scripts: Record<string, string> | undefined, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(scripts ?? {}).filter(([name]) => names.includes(name)));
}

/** The bundle's root package.json: the runtime scripts, the shipped workspaces, no devDependencies. */
export function productionRoot(manifest: Manifest, workspaces: string[]): Manifest {
  const out = without(manifest, DEV_FIELDS);
  out.workspaces = workspaces;
  out.scripts = pick(manifest.scripts, RUNTIME_SCRIPTS);
  return out;
}

/** A shipped workspace's package.json: its dependencies, and no build, test or lint scripts. */
export function productionWorkspace(manifest: Manifest): Manifest {
  const out = without(manifest, [...DEV_FIELDS, 'scripts']);
  const scripts = pick(manifest.scripts, INSTALL_SCRIPTS);
  if (Object.keys(scripts).length) out.scripts = scripts;
  return out;
}

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  link?: boolean;
  resolved?: string;
  devDependencies?: Record<string, string>;
  [key: string]: unknown;
}

export interface Lockfile {
  name: string;
  version?: string;
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
  [key: string]: unknown;
}

/**
 * The lockfile for the shipped tree: entries only development needs (`dev`), the workspaces left out
 * and their links go; the rest keeps its exact versions and integrity. `devOptional` (optional for
 * the runtime tree, a plain dependency of a dev tool) becomes `optional`. The workspaces' entries
 * mirror their rewritten package.json, so `npm ci` finds the two in sync.
 */
export function pruneLockfile(lock: Lockfile, root: Manifest, workspaces: Map<string, Manifest>): Lockfile {
  const kept = [...workspaces.keys()];
  const inDroppedWorkspace = (key: string) =>
    !key.startsWith('node_modules/') && !kept.some((w) => key === w || key.startsWith(`${w}/`));
  const packages: Record<string, LockEntry> = {};
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === '') {
      packages[key] = { ...without(entry as Manifest, DEV_FIELDS), workspaces: kept };
      continue;
    }
    if (entry.dev) continue;
    if (entry.link && entry.resolved && !workspaces.has(entry.resolved)) continue;
    if (inDroppedWorkspace(key)) continue;
    const next: LockEntry = workspaces.has(key) ? without(entry as Manifest, DEV_FIELDS) : { ...entry };
    if (next.devOptional) {
      delete next.devOptional;
      next.optional = true;
    }
    packages[key] = next;
  }
  return { ...lock, name: root.name ?? lock.name, version: root.version, packages };
}

/** Where the packages that only development needs would be installed (lockfile keys). */
export function devOnlyPaths(lock: Lockfile): string[] {
  return Object.entries(lock.packages)
    .filter(([, e]) => e.dev)
    .map(([key]) => key);
}
