#!/usr/bin/env node
/**
 * `npm run package [-- --out DIR]`: the release bundle `outpost-<version>.tgz`. It holds the built
 * services and web assets with production package.json files and a pruned lockfile, so a target
 * installs it with `npm ci --omit=dev` and runs `npm start`, with nothing to compile.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as tar from 'tar';
import {
  isShipped,
  listWorkspaces,
  type Manifest,
  readManifest,
  type Workspace,
  workspaceFiles,
} from './bundle-files.js';
import { type Lockfile, productionRoot, productionWorkspace, pruneLockfile } from './bundle-lock.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Files a site may generate inside infra/ (broker password files, make-tls.sh's copies): never shipped. */
const INFRA_SKIP = /(^|\/)passwd(\.tmp\..*)?$|(^|\/)mosquitto\/tls\//;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function gitCommit(root: string): string | null {
  const r = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Every shipped workspace must find the workspaces it depends on at run time in the bundle too. */
function checkRuntimeDeps(shipped: Workspace[], all: Workspace[]): void {
  const names = new Set(shipped.map((w) => w.manifest.name));
  const local = new Set(all.map((w) => w.manifest.name));
  for (const ws of shipped) {
    const deps = { ...ws.manifest.dependencies, ...ws.manifest.optionalDependencies };
    for (const dep of Object.keys(deps)) {
      if (local.has(dep) && !names.has(dep)) {
        throw new Error(`${ws.path} needs ${dep} at run time, but ${dep} has no build (dist/) to ship`);
      }
    }
  }
}

function copyTree(from: string, to: string, rel = ''): void {
  for (const entry of readdirSync(join(from, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (INFRA_SKIP.test(path)) continue;
    if (entry.isDirectory()) copyTree(from, to, path);
    else if (entry.isFile()) cpSync(join(from, path), join(to, path));
  }
}

export interface BundleResult {
  file: string;
  version: string;
  workspaces: string[];
  bytes: number;
}

/** Writes `<outDir>/outpost-<version>.tgz` from the built checkout at `root`. */
export async function buildBundle(root: string, outDir: string): Promise<BundleResult> {
  const rootManifest = readManifest(join(root, 'package.json'));
  const version = rootManifest.version;
  if (!version) throw new Error(`${join(root, 'package.json')} has no "version"`);
  const all = listWorkspaces(root, rootManifest.workspaces ?? []);
  const shipped = all.filter((ws) => isShipped(root, ws));
  checkRuntimeDeps(shipped, all);

  const top = `outpost-${version}`;
  const staging = mkdtempSync(join(tmpdir(), 'outpost-package-'));
  try {
    const dest = join(staging, top);
    const manifests = new Map<string, Manifest>();
    for (const ws of shipped) {
      const from = join(root, ws.path);
      for (const f of workspaceFiles(from, ws.manifest)) {
        mkdirSync(dirname(join(dest, ws.path, f)), { recursive: true });
        cpSync(join(from, f), join(dest, ws.path, f));
      }
      const prod = productionWorkspace(ws.manifest);
      manifests.set(ws.path, prod);
      writeFileSync(join(dest, ws.path, 'package.json'), json(prod));
    }
    const paths = shipped.map((w) => w.path);
    const prodRoot = productionRoot(rootManifest, paths);
    writeFileSync(join(dest, 'package.json'), json(prodRoot));
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as Lockfile;
    writeFileSync(join(dest, 'package-lock.json'), json(pruneLockfile(lock, prodRoot, manifests)));
    cpSync(join(root, 'README.md'), join(dest, 'README.md'));
    copyTree(join(root, 'infra'), join(dest, 'infra'));
    writeFileSync(
      join(dest, 'bundle.json'),
      json({
        name: rootManifest.name,
        version,
        built_at: new Date().toISOString(),
        built_with_node: process.version,
        commit: gitCommit(root),
        workspaces: paths,
      }),
    );

    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, `${top}.tgz`);
    await tar.c({ gzip: true, file, cwd: staging, portable: true }, [top]);
    return { file, version, workspaces: paths, bytes: statSync(file).size };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const outDir = resolve(values.out ?? repoRoot);
  const r = await buildBundle(repoRoot, outDir);
  process.stdout.write(
    `outpost: ${r.file} (${(r.bytes / 2 ** 20).toFixed(1)} MiB): ${r.workspaces.join(', ')}\n` +
      `  on the target: tar -xzf ${r.file.split('/').pop()} && cd outpost-${r.version} && ` +
      'npm ci --omit=dev && npm start\n',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`outpost: package: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
