import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256File } from '../src/archive-check.js';
import { ensureSecrets } from '../src/secrets.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CI = process.env.CI === 'true';
const DB_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const temps: string[] = [];
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'outpost-backup-test-'));
  temps.push(d);
  return d;
};

/** Runs `npm run backup` / `npm run restore` as a user would: the built CLI, env and cwd. */
function cli(name: 'backup' | 'restore', args: string[], env: Record<string, string>, cwd: string) {
  const clean = { ...process.env };
  delete clean.DATABASE_URL;
  return spawnSync(process.execPath, [join(root, 'scripts', 'dist', `${name}.js`), ...args], {
    cwd,
    env: { ...clean, ...env },
    encoding: 'utf8',
  });
}

async function archiveEntries(file: string): Promise<Map<string, number>> {
  const entries = new Map<string, number>();
  await tar.t({ file, onReadEntry: (e) => entries.set(e.path.replace(/\/$/, ''), (e.mode ?? 0) & 0o777) });
  return entries;
}

/** The site as the launcher leaves it: secrets, broker users and the relay node's settings. */
function seedDataDir(dataDir: string): string {
  ensureSecrets(dataDir);
  mkdirSync(join(dataDir, 'relay-node'), { recursive: true });
  writeFileSync(join(dataDir, 'relay-node', 'settings.json'), '{"reboot_schedule":null}\n', { mode: 0o600 });
  return readFileSync(join(dataDir, 'secrets.json'), 'utf8');
}

describe('backup and restore with PGlite under DATA_DIR', () => {
  it('refuses while a service holds the database, then round-trips secrets (0600) and the data', {
    timeout: 90_000,
  }, async () => {
    const work = tempDir();
    const dataDir = join(work, 'data');
    const secrets = seedDataDir(dataDir);
    const db = new PGlite(join(dataDir, 'controller'));
    await db.exec(`create schema controller; create table controller.runs (id int primary key, trigger_type text);
                   insert into controller.runs values (1, 'manual'), (2, 'exercise');`);

    // This test process has the database open, like a running controller would.
    const refused = cli('backup', ['--out', join(work, 'busy.tar.gz')], { DATA_DIR: dataDir }, work);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`${join(dataDir, 'controller')} is in use by process ${process.pid}`);
    expect(refused.stderr).toContain('stop the Outpost services first');
    expect(existsSync(join(work, 'busy.tar.gz'))).toBe(false);

    await db.close();
    const made = cli('backup', [], { DATA_DIR: dataDir }, work);
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    const file = /backup written to (\S+\.tar\.gz)/.exec(made.stdout)![1]!;
    expect(file.startsWith(join(work, 'outpost-backup-'))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const entries = await archiveEntries(file);
    expect(entries.get('data/secrets.json')).toBe(0o600);
    expect(entries.get('data/mqtt-users.json')).toBe(0o600);
    expect(entries.has('data/relay-node/settings.json')).toBe(true);
    expect(entries.has('data/controller/PG_VERSION')).toBe(true);
    expect(entries.has('data/controller/postmaster.pid')).toBe(false);
    expect(entries.has('db')).toBe(false);

    rmSync(dataDir, { recursive: true });
    const back = cli('restore', [file], { DATA_DIR: dataDir }, work);
    expect(back.stderr).toBe('');
    expect(back.status).toBe(0);
    expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).toBe(secrets);
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'mqtt-users.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, 'relay-node', 'settings.json'), 'utf8')).toContain('reboot_schedule');
    const reopened = new PGlite(join(dataDir, 'controller'));
    const rows = await reopened.query<{ id: number; trigger_type: string }>(
      'select * from controller.runs order by id',
    );
    expect(rows.rows).toEqual([
      { id: 1, trigger_type: 'manual' },
      { id: 2, trigger_type: 'exercise' },
    ]);

    // Restoring over a live database is refused too; over stopped data only with --force.
    const busy = cli('restore', [file, '--force'], { DATA_DIR: dataDir }, work);
    expect(busy.status).toBe(1);
    expect(busy.stderr).toContain('is in use by process');
    await reopened.close();
    const noForce = cli('restore', [file], { DATA_DIR: dataDir }, work);
    expect(noForce.status).toBe(1);
    expect(noForce.stderr).toContain('pass --force to overwrite them');
    writeFileSync(join(dataDir, 'secrets.json'), '{}', { mode: 0o600 });
    expect(cli('restore', [file, '--force'], { DATA_DIR: dataDir }, work).status).toBe(0);
    expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).toBe(secrets);
  });

  it('refuses an archive that is not an Outpost backup, changing nothing', async () => {
    const work = tempDir();
    writeFileSync(join(work, 'junk.tar.gz'), 'not a tarball');
    const r = cli('restore', [join(work, 'junk.tar.gz')], { DATA_DIR: join(work, 'data') }, work);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^restore failed: .*junk\.tar\.gz is not a readable backup/);
  });
});

function psql(url: string, sql: string) {
  return spawnSync('psql', ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', url, '-c', sql], {
    encoding: 'utf8',
  });
}
const dbUrl = (name: string) => {
  const u = new URL(DB_URL);
  u.pathname = `/${name}`;
  return u.toString();
};

describe('backup and restore with PostgreSQL', () => {
  const source = `outpost_backup_src_${process.pid}`;
  const target = `outpost_backup_dst_${process.pid}`;
  let ready = false;
  beforeAll(() => {
    ready =
      spawnSync('sh', ['-c', 'command -v pg_dump && command -v psql']).status === 0 &&
      psql(DB_URL, 'select 1').status === 0;
    if (!ready) return;
    for (const db of [source, target]) psql(DB_URL, `drop database if exists ${db} with (force)`);
    psql(DB_URL, `create database ${source}`);
    psql(DB_URL, `create database ${target}`);
  });
  afterAll(() => {
    if (!ready) return;
    for (const db of [source, target]) psql(DB_URL, `drop database if exists ${db} with (force)`);
  });

  it('dumps only the Outpost schemas and restores them, refusing to overwrite without --force', {
    timeout: 60_000,
  }, async (ctx) => {
    if (!ready) {
      if (CI) throw new Error(`PostgreSQL with pg_dump/psql not reachable at ${DB_URL}`);
      ctx.skip('PostgreSQL not reachable');
    }
    const setup = psql(
      dbUrl(source),
      `create schema controller; create table controller.runs (id serial primary key, trigger_type text not null);
       insert into controller.runs (trigger_type) values ('manual'), ('bms');
       create schema notifier; create table notifier.deliveries (id int primary key, status text);
       insert into notifier.deliveries values (7, 'sent');
       create schema other; create table other.unrelated (x int);`,
    );
    expect(setup.stderr).toBe('');
    const work = tempDir();
    const dataDir = join(work, 'data');
    const secrets = seedDataDir(dataDir);
    const file = join(work, 'site.tar.gz');

    const made = cli('backup', ['--out', file], { DATA_DIR: dataDir, DATABASE_URL: dbUrl(source) }, work);
    expect(made.stderr).toBe('');
    expect(made.stdout).toContain('PostgreSQL schemas controller, notifier');
    const entries = await archiveEntries(file);
    expect(entries.get('data/secrets.json')).toBe(0o600);
    expect(entries.has('db/postgres.sql')).toBe(true);

    // Into an empty database (a new machine), with an empty DATA_DIR.
    rmSync(dataDir, { recursive: true });
    const back = cli('restore', [file], { DATA_DIR: dataDir, DATABASE_URL: dbUrl(target) }, work);
    expect(back.stderr).toBe('');
    expect(back.status).toBe(0);
    expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).toBe(secrets);
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(psql(dbUrl(target), 'select id, trigger_type from controller.runs order by id').stdout).toBe(
      '1|manual\n2|bms\n',
    );
    expect(psql(dbUrl(target), 'select status from notifier.deliveries').stdout).toBe('sent\n');
    expect(psql(dbUrl(target), "select count(*) from pg_namespace where nspname = 'other'").stdout).toBe(
      '0\n',
    );
    // The serial continues where it was, so new runs do not collide with restored ones.
    expect(
      psql(dbUrl(target), "insert into controller.runs (trigger_type) values ('x') returning id").stdout,
    ).toBe('3\n');

    // Back over the original database: refused, then with --force it is exactly the backup again.
    psql(
      dbUrl(source),
      "update controller.runs set trigger_type = 'changed'; create table controller.added_later (y int);",
    );
    const refused = cli(
      'restore',
      [file],
      { DATA_DIR: join(work, 'other-data'), DATABASE_URL: dbUrl(source) },
      work,
    );
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('would replace schema controller, schema notifier: pass --force');
    const forced = cli(
      'restore',
      [file, '--force'],
      { DATA_DIR: join(work, 'other-data'), DATABASE_URL: dbUrl(source) },
      work,
    );
    expect(forced.stderr).toBe('');
    expect(psql(dbUrl(source), 'select trigger_type from controller.runs order by id').stdout).toBe(
      'manual\nbms\n',
    );
    expect(psql(dbUrl(source), "select to_regclass('controller.added_later') is null").stdout).toBe('t\n');
    expect(psql(dbUrl(source), 'select count(*) from other.unrelated').stdout).toBe('0\n');
  });

  it('keeps the database password off the command line of pg_dump and psql', {
    timeout: 60_000,
  }, async (ctx) => {
    if (!ready) {
      if (CI) throw new Error(`PostgreSQL with pg_dump/psql not reachable at ${DB_URL}`);
      ctx.skip('PostgreSQL not reachable');
    }
    // The real tools run; a wrapper ahead of them on PATH writes down what `ps` would have shown.
    const work = tempDir();
    const bin = join(work, 'bin');
    const seen = join(work, 'seen.log');
    mkdirSync(bin);
    for (const tool of ['pg_dump', 'psql']) {
      const real = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      writeFileSync(
        join(bin, tool),
        `#!/bin/sh\necho "${tool} $* | PGPASSWORD=$PGPASSWORD" >> ${JSON.stringify(seen)}\nexec ${real} "$@"\n`,
        { mode: 0o755 },
      );
    }
    const url = new URL(dbUrl(source));
    url.password = 'not-on-the-command-line';
    const dataDir = join(work, 'data');
    seedDataDir(dataDir);
    const file = join(work, 'site.tar.gz');
    const made = cli(
      'backup',
      ['--out', file],
      { DATA_DIR: dataDir, DATABASE_URL: url.toString(), PATH: `${bin}:${process.env.PATH}` },
      work,
    );
    expect(made.stderr).toBe('');
    const calls = readFileSync(seen, 'utf8').trim().split('\n');
    expect(calls.map((c) => c.split(' ')[0])).toEqual(['psql', 'pg_dump']);
    for (const call of calls) {
      const [argv, env] = call.split(' | ');
      expect(argv).not.toContain('not-on-the-command-line');
      expect(argv).not.toContain('postgres://');
      expect(env).toBe('PGPASSWORD=not-on-the-command-line');
    }
  });

  it('will not restore a PostgreSQL backup without DATABASE_URL', { timeout: 30_000 }, async (ctx) => {
    if (!ready) {
      if (CI) throw new Error(`PostgreSQL with pg_dump/psql not reachable at ${DB_URL}`);
      ctx.skip('PostgreSQL not reachable');
    }
    const work = tempDir();
    seedDataDir(join(work, 'data'));
    const file = join(work, 'b.tar.gz');
    expect(
      cli('backup', ['--out', file], { DATA_DIR: join(work, 'data'), DATABASE_URL: dbUrl(source) }, work)
        .status,
    ).toBe(0);
    const r = cli('restore', [file], { DATA_DIR: join(work, 'fresh') }, work);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('set DATABASE_URL');
    expect(existsSync(join(work, 'fresh', 'secrets.json'))).toBe(false);
  });
});

describe('a restore checks the archive before it changes anything', () => {
  /** A real backup of a small DATA_DIR, unpacked so a test can alter it and pack it again. */
  async function unpackedBackup() {
    const work = tempDir();
    const dataDir = join(work, 'data');
    seedDataDir(dataDir);
    const file = join(work, 'site.tar.gz');
    expect(cli('backup', ['--out', file], { DATA_DIR: dataDir }, work).status).toBe(0);
    const tree = join(work, 'tree');
    mkdirSync(tree);
    await tar.x({ file, cwd: tree });
    const manifest = JSON.parse(readFileSync(join(tree, 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.files)).toContain('data/secrets.json');
    const repack = async (name: string) => {
      writeFileSync(join(tree, 'manifest.json'), JSON.stringify(manifest));
      const out = join(work, name);
      await tar.c({ gzip: true, cwd: tree, file: out }, readdirSync(tree));
      return out;
    };
    const target = join(work, 'restored');
    const restoreInto = (archive: string, env: Record<string, string> = {}) =>
      cli('restore', [archive], { DATA_DIR: target, ...env }, work);
    return { work, tree, manifest, repack, target, restoreInto };
  }

  it('refuses a file changed after the backup, and a file the manifest does not list', async () => {
    const b = await unpackedBackup();
    writeFileSync(join(b.tree, 'data', 'secrets.json'), '{"jwt_secret":"chosen-by-someone-else"}');
    const changed = b.restoreInto(await b.repack('changed.tar.gz'));
    expect(changed.status).toBe(1);
    expect(changed.stderr).toContain('data/secrets.json does not match its SHA-256 in the manifest');
    expect(existsSync(join(b.target, 'secrets.json'))).toBe(false);

    b.manifest.files['data/secrets.json'] = sha256File(join(b.tree, 'data', 'secrets.json'));
    writeFileSync(join(b.tree, 'data', 'extra.sh'), 'echo hi\n');
    const extra = b.restoreInto(await b.repack('extra.tar.gz'));
    expect(extra.status).toBe(1);
    expect(extra.stderr).toContain('data/extra.sh is not listed in the manifest');
    expect(existsSync(join(b.target, 'secrets.json'))).toBe(false);
  });

  it('refuses a link inside the archive', async () => {
    const b = await unpackedBackup();
    symlinkSync('/etc/passwd', join(b.tree, 'data', 'passwd'));
    const r = b.restoreInto(await b.repack('link.tar.gz'));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('data/passwd (SymbolicLink): a backup holds files and directories only');
    expect(existsSync(join(b.target, 'secrets.json'))).toBe(false);
  });

  it('never hands psql a dump that holds a backslash command, even with matching hashes', async () => {
    const b = await unpackedBackup();
    const marker = join(b.work, 'shell-ran');
    mkdirSync(join(b.tree, 'db'));
    const dump = [
      'CREATE SCHEMA controller;',
      'COPY controller.runs (id, notes) FROM stdin;',
      '1\t\\N looks like a command but is COPY data',
      '\\.',
      `\\! touch ${marker}`,
      '',
    ].join('\n');
    writeFileSync(join(b.tree, 'db', 'postgres.sql'), dump);
    b.manifest.database = 'postgresql';
    b.manifest.schemas = ['controller'];
    b.manifest.files['db/postgres.sql'] = sha256File(join(b.tree, 'db', 'postgres.sql'));
    const r = b.restoreInto(await b.repack('shell.tar.gz'), { DATABASE_URL: DB_URL });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the database dump holds a psql command on line 5');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(b.target, 'secrets.json'))).toBe(false);
  });
});
