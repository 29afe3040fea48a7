import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

/** The parts of package.json the release bundle reads and rewrites. */
export interface Manifest {
  name?: string;
  version?: string;
  private?: boolean;
  workspaces?: string[];
  files?: string[];
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  [key: string]: unknown;
}

export interface Workspace {
  /** Path from the repository root, with forward slashes: `services/controller`. */
  path: string;
  manifest: Manifest;
}

/** Build output that is of no use at run time. */
const NOT_SHIPPED = /\.(map|d\.ts|d\.ts\.map|tsbuildinfo)$/;

export const readManifest = (path: string): Manifest => JSON.parse(readFileSync(path, 'utf8')) as Manifest;

/** The workspace folders the root package.json names (a trailing `/*` means every folder in it). */
export function listWorkspaces(root: string, patterns: string[]): Workspace[] {
  const paths: string[] = [];
  for (const pattern of patterns) {
    if (pattern.endsWith('/*')) {
      const parent = pattern.slice(0, -2);
      for (const entry of readdirSync(join(root, parent), { withFileTypes: true }).sort((a, b) =>
        a.name.localeCompare(b.name),
      )) {
        if (entry.isDirectory()) paths.push(posix.join(parent, entry.name));
      }
    } else if (pattern.includes('*')) {
      throw new Error(`workspace pattern ${pattern}: only "dir" and "dir/*" are understood`);
    } else {
      paths.push(pattern);
    }
  }
  return paths
    .filter((p) => existsSync(join(root, p, 'package.json')))
    .map((path) => ({ path, manifest: readManifest(join(root, path, 'package.json')) }));
}

/**
 * A workspace ships when it has something to run: a `files` list, or a `dist/` build. One with neither
 * (the shared UI sources, which Vite compiles into each service's web assets) is needed only to build.
 */
export function isShipped(root: string, ws: Workspace): boolean {
  return Array.isArray(ws.manifest.files) || existsSync(join(root, ws.path, 'dist'));
}

function walk(dir: string, rel: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    const relPath = posix.join(rel, entry.name);
    if (entry.isDirectory()) walk(full, relPath, out);
    else if (entry.isFile()) out.push(relPath);
  }
}

/**
 * The files a workspace ships, relative to it: package.json, README.md, and what its `files` list
 * names (default `dist`). Entries are plain paths; one starting with `!` takes a path back out.
 * Source maps and type declarations stay behind.
 */
export function workspaceFiles(dir: string, manifest: Manifest): string[] {
  const entries = manifest.files ?? ['dist'];
  const include = entries.filter((e) => !e.startsWith('!')).map((e) => posix.normalize(e));
  const exclude = entries.filter((e) => e.startsWith('!')).map((e) => posix.normalize(e.slice(1)));
  const found = new Set<string>(['package.json']);
  if (existsSync(join(dir, 'README.md'))) found.add('README.md');
  for (const entry of include) {
    const full = join(dir, entry);
    if (!existsSync(full)) {
      const hint = entry.includes('dist') ? ' (not built yet? npm run package builds first)' : '';
      throw new Error(`${join(dir, 'package.json')}: "files" names ${entry}, which is missing${hint}`);
    }
    const listed: string[] = [];
    if (statSync(full).isDirectory()) walk(full, entry, listed);
    else listed.push(entry);
    for (const f of listed) found.add(f);
  }
  const excluded = (f: string) => exclude.some((x) => f === x || f.startsWith(`${x}/`));
  return [...found].filter((f) => !excluded(f) && (f === 'package.json' || !NOT_SHIPPED.test(f))).sort();
}
