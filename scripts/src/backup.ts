/**
 * `npm run backup [-- --out <file>]`: one .tar.gz (mode 0600) with everything a site needs back after
 * losing its disk: DATA_DIR (secrets, broker users, relay node settings) and the database. With
 * DATABASE_URL the database is a pg_dump of the Outpost schemas (consistent while services run);
 * without it the embedded database directory (DATA_DIR/postgres) is copied, which needs the stack stopped.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as tar from 'tar';
import { hashTree } from './archive-check.js';

export const BACKUP_FORMAT = 'outpost-backup';
/** 2: the manifest lists every file with its SHA-256. */
export const BACKUP_VERSION = 2;
/** The PostgreSQL schemas of the services that own data. */
export const OUTPOST_SCHEMAS = ['controller', 'notifier'] as const;
export const DUMP_FILE = 'db/postgres.sql';
/** PGlite's lock file: present while a process has the database open (and after a hard kill). */
const PID_FILE = 'postmaster.pid';
/** Where a restore unpacks inside DATA_DIR; never part of a backup. */
export const RESTORE_STAGING_PREFIX = '.outpost-restore-';

export interface Manifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  created_at: string;
  database: 'postgresql' | 'pglite' | 'none';
  schemas: string[];
  data_entries: string[];
  pglite_dirs: string[];
  /** Archive path → SHA-256 of every file under data/ and db/ (version 2 on). */
  files?: Record<string, string>;
}

export class BackupError extends Error {
  override name = 'BackupError';
}

/**
 * An embedded database directory (DATA_DIR/postgres, or PGlite's of earlier versions) is recognised by
 * the PG_VERSION file every PostgreSQL cluster has. It is copied as files, with the stack stopped.
 */
export function pgliteDirs(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  return (
    readdirSync(dataDir, { withFileTypes: true })
      // A link counts too: under root the cluster may be kept outside DATA_DIR (embedded-db.ts).
      .filter(
        (e) => (e.isDirectory() || e.isSymbolicLink()) && existsSync(join(dataDir, e.name, 'PG_VERSION')),
      )
      .map((e) => e.name)
  );
}

/**
 * Processes with a file open under `dir` (Linux /proc). PGlite keeps its relation files open for as
 * long as the database is, so this finds a running service even when its pid file says nothing useful.
 */
export function processesHolding(dir: string): number[] {
  if (!existsSync('/proc')) return [];
  let real = resolve(dir);
  try {
    real = realpathSync(real); // the fds name the real path, not a link to it
  } catch {}
  const root = real + sep;
  const holders: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or another user's process
    }
    for (const fd of fds) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {}
      if (target.startsWith(root)) {
        holders.push(Number(pid));
        break;
      }
    }
  }
  return holders;
}

/** Refuses while a service has one of the embedded databases open: a copy of it would be torn. */
export function assertPgliteIdle(dataDir: string, dirs: string[]): void {
  for (const d of dirs) {
    const pids = processesHolding(join(dataDir, d));
    if (pids.length > 0) {
      throw new BackupError(
        `${join(dataDir, d)} is in use by process ${pids.join(', ')}: stop the Outpost services first ` +
          '(Ctrl-C the launcher, or systemctl stop outpost.target), or set DATABASE_URL to use PostgreSQL, which can be dumped while running',
      );
    }
  }
}

/**
 * libpq's environment for a connection URL: a command line is readable by every user of the machine
 * (`ps`), the environment only by the process's owner.
 */
export function pgEnv(databaseUrl: string): Record<string, string> {
  const u = new URL(databaseUrl);
  const env: Record<string, string> = {};
  if (u.hostname) env.PGHOST = decodeURIComponent(u.hostname.replace(/^\[|\]$/g, ''));
  if (u.port) env.PGPORT = u.port;
  if (u.username) env.PGUSER = decodeURIComponent(u.username);
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  const db = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (db) env.PGDATABASE = db;
  const fromQuery: Record<string, string> = {
    host: 'PGHOST',
    port: 'PGPORT',
    sslmode: 'PGSSLMODE',
    sslrootcert: 'PGSSLROOTCERT',
    sslcert: 'PGSSLCERT',
    sslkey: 'PGSSLKEY',
    application_name: 'PGAPPNAME',
    connect_timeout: 'PGCONNECT_TIMEOUT',
  };
  for (const [key, value] of u.searchParams) {
    const name = fromQuery[key];
    if (name) env[name] = value;
  }
  return env;
}

/** Runs a PostgreSQL client tool on a database; its stderr becomes the error. */
export function runPg(cmd: string, args: string[], databaseUrl: string): string {
  const res = spawnSync(cmd, args, {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, ...pgEnv(databaseUrl) },
  });
  if (res.error) {
    const missing = (res.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new BackupError(
      missing
        ? `${cmd} not found: install the PostgreSQL client (apt-get install postgresql-client)`
        : res.error.message,
    );
  }
  if (res.status !== 0)
    throw new BackupError(`${cmd} failed: ${res.stderr.trim().replace(/:\/\/[^@\s]*@/g, '://***@')}`);
  return res.stdout;
}

export function existingSchemas(databaseUrl: string): string[] {
  const list = OUTPOST_SCHEMAS.map((s) => `'${s}'`).join(',');
  const out = runPg(
    'psql',
    [
      '-X',
      '-At',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      `select nspname from pg_namespace where nspname in (${list}) order by 1`,
    ],
    databaseUrl,
  );
  return out.split('\n').filter(Boolean);
}

export interface BackupOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  out?: string | undefined;
  now?: Date;
}

const stamp = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

export async function backup(opts: BackupOptions): Promise<{ file: string; manifest: Manifest }> {
  const dataDir = resolve(opts.dataDir);
  const now = opts.now ?? new Date();
  const file = resolve(opts.out ?? `outpost-backup-${stamp(now)}.tar.gz`);
  if (!existsSync(dataDir)) throw new BackupError(`DATA_DIR ${dataDir} does not exist`);
  if (existsSync(file)) throw new BackupError(`${file} already exists`);

  const embedded = pgliteDirs(dataDir);
  const usePostgres = Boolean(opts.databaseUrl);
  // With PostgreSQL, PGlite directories are leftovers from before the switch: not the site's data.
  const copyPglite = usePostgres ? [] : embedded;
  if (!usePostgres) assertPgliteIdle(dataDir, copyPglite);

  const staging = mkdtempSync(join(tmpdir(), 'outpost-backup-'));
  try {
    let schemas: string[] = [];
    if (usePostgres) {
      schemas = existingSchemas(opts.databaseUrl!);
      mkdirSync(join(staging, 'db'));
      const args = ['--no-owner', '--no-privileges', '--clean', '--if-exists', '--quote-all-identifiers'];
      const dumpFile = join(staging, DUMP_FILE);
      writeFileSync(dumpFile, '', { mode: 0o600 });
      if (schemas.length > 0)
        runPg('pg_dump', [...args, '-f', dumpFile, ...schemas.flatMap((s) => ['-n', s])], opts.databaseUrl!);
    }

    const entries = readdirSync(dataDir).filter(
      (name) =>
        !name.endsWith('.tmp') &&
        !name.startsWith(RESTORE_STAGING_PREFIX) &&
        (!embedded.includes(name) || copyPglite.includes(name)),
    );
    mkdirSync(join(staging, 'data'), { mode: 0o700 });
    for (const name of entries) {
      cpSync(join(dataDir, name), join(staging, 'data', name), {
        recursive: true,
        preserveTimestamps: true,
        // The cluster's link is backed up as the cluster itself.
        dereference: true,
        filter: (src) => !src.endsWith(`${sep}${PID_FILE}`),
      });
    }
    copyModes(dataDir, join(staging, 'data'));

    const manifest: Manifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      created_at: now.toISOString(),
      database: usePostgres ? 'postgresql' : copyPglite.length > 0 ? 'pglite' : 'none',
      schemas,
      data_entries: entries,
      pglite_dirs: copyPglite,
      files: hashTree(staging, ['data', 'db']),
    };
    writeFileSync(join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });

    const list = ['manifest.json', 'data', ...(usePostgres ? ['db'] : [])];
    // gzip level 1: PGlite directories are mostly empty pages; a Pi Zero should not spend minutes here.
    // The archive holds every secret of the site: created 0600, never readable by others in between.
    await pipeline(
      tar.c({ gzip: { level: 1 }, cwd: staging, portable: true }, list),
      createWriteStream(file, { mode: 0o600, flags: 'wx' }),
    );
    chmodSync(file, 0o600);
    return { file, manifest };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** cpSync keeps file modes but not always directory modes; directories of DATA_DIR are private. */
function copyModes(from: string, to: string): void {
  chmodSync(to, statSync(from).mode & 0o7777);
  for (const e of readdirSync(to, { withFileTypes: true })) {
    if (!existsSync(join(from, e.name))) continue;
    if (e.isDirectory()) copyModes(join(from, e.name), join(to, e.name));
    else chmodSync(join(to, e.name), statSync(join(from, e.name)).mode & 0o7777);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', short: 'o' } } });
  try {
    const { file, manifest } = await backup({
      dataDir: process.env.DATA_DIR ?? './data',
      databaseUrl: process.env.DATABASE_URL || undefined,
      out: values.out,
    });
    const db =
      manifest.database === 'postgresql'
        ? `PostgreSQL schemas ${manifest.schemas.join(', ') || '(none yet)'}`
        : manifest.database === 'pglite'
          ? `embedded database (${manifest.pglite_dirs.join(', ')})`
          : 'no database';
    process.stdout.write(
      `backup written to ${file} (mode 0600): ${manifest.data_entries.length} DATA_DIR entries, ${db}\n`,
    );
  } catch (err) {
    process.stderr.write(`backup failed: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
