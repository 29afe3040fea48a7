/**
 * `npm run restore -- <backup.tar.gz> [--force]`: puts a backup made by `npm run backup` back: the
 * DATA_DIR entries (modes kept, so secrets stay 0600) and the database (the PostgreSQL dump into
 * DATABASE_URL, or the embedded database directory). Refuses to overwrite anything that exists unless --force,
 * and refuses while a service has an embedded database open.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as tar from 'tar';
import { hashMismatch, hashTree, metaCommandLine } from './archive-check.js';
import { z } from 'zod';
import {
  assertPgliteIdle,
  BACKUP_FORMAT,
  BACKUP_VERSION,
  BackupError,
  DUMP_FILE,
  existingSchemas,
  type Manifest,
  pgliteDirs,
  RESTORE_STAGING_PREFIX,
  runPg,
} from './backup.js';

const ManifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.number().int().min(1).max(BACKUP_VERSION),
  created_at: z.string(),
  database: z.enum(['postgresql', 'pglite', 'none']),
  schemas: z.array(z.string().regex(/^[a-z_]+$/)),
  data_entries: z.array(
    z
      .string()
      .min(1)
      .refine((s) => !s.includes('/') && s !== '..' && s !== '.'),
  ),
  pglite_dirs: z.array(z.string()),
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)).optional(),
});

export interface RestoreOptions {
  archive: string;
  dataDir: string;
  databaseUrl?: string | undefined;
  force?: boolean;
}

export interface RestoreResult {
  manifest: Manifest;
  restoredEntries: string[];
  restoredSchemas: string[];
  notes: string[];
}

export async function restore(opts: RestoreOptions): Promise<RestoreResult> {
  const archive = resolve(opts.archive);
  const dataDir = resolve(opts.dataDir);
  if (!existsSync(archive)) throw new BackupError(`${archive} does not exist`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Before anything else: replacing a database under a running service would corrupt it.
  assertPgliteIdle(dataDir, pgliteDirs(dataDir));

  // Unpacked inside DATA_DIR (same file system, writable by whoever owns it) so each entry moves
  // into place with a rename, never half-copied.
  const staging = mkdtempSync(join(dataDir, RESTORE_STAGING_PREFIX));
  const links: string[] = [];
  try {
    try {
      // Files and directories only: a link in an archive from elsewhere could point out of DATA_DIR.
      await tar.x({
        file: archive,
        cwd: staging,
        strict: true,
        filter: (path, entry) => {
          const type = (entry as { type?: string }).type ?? 'unknown';
          const plain = type === 'File' || type === 'OldFile' || type === 'Directory';
          if (!plain) links.push(`${path} (${type})`);
          return plain;
        },
      });
    } catch (err) {
      throw new BackupError(`${archive} is not a readable backup: ${(err as Error).message}`);
    }
    if (links.length > 0)
      throw new BackupError(`${archive} holds ${links[0]}: a backup holds files and directories only`);
    const manifestPath = join(staging, 'manifest.json');
    if (!existsSync(manifestPath))
      throw new BackupError(`${archive} has no manifest.json: not an Outpost backup`);
    const parsed = ManifestSchema.safeParse(JSON.parse(readFileSync(manifestPath, 'utf8')));
    if (!parsed.success)
      throw new BackupError(
        `${archive}: unsupported or damaged manifest (${parsed.error.issues[0]?.message})`,
      );
    const manifest = parsed.data as Manifest;
    const notes: string[] = [];
    if (manifest.files) {
      const wrong = hashMismatch(hashTree(staging, ['data', 'db']), manifest.files);
      if (wrong) throw new BackupError(`${archive} is damaged or altered: ${wrong}`);
    } else {
      notes.push('this backup was made by an earlier version, whose manifest lists no hashes to verify');
    }
    if (manifest.database === 'postgresql') {
      const dumpPath = join(staging, DUMP_FILE);
      const line = existsSync(dumpPath) ? metaCommandLine(readFileSync(dumpPath, 'utf8')) : null;
      if (line !== null)
        throw new BackupError(
          `${archive}: the database dump holds a psql command on line ${line}; a pg_dump never writes one, so it is refused`,
        );
    }

    if (manifest.database === 'postgresql' && !opts.databaseUrl)
      throw new BackupError(
        'this backup holds a PostgreSQL dump: set DATABASE_URL to the database to restore it into',
      );
    if (manifest.database === 'pglite' && opts.databaseUrl)
      notes.push(
        'the backup holds an embedded database; with DATABASE_URL set the services use that PostgreSQL instead',
      );

    // Everything is checked before anything is changed.
    const clashes = manifest.data_entries.filter((e) => existsSync(join(dataDir, e)));
    const schemasThere = manifest.database === 'postgresql' ? existingSchemas(opts.databaseUrl!) : [];
    const schemaClashes = manifest.schemas.filter((s) => schemasThere.includes(s));
    if (!opts.force && (clashes.length > 0 || schemaClashes.length > 0)) {
      const what = [...clashes.map((c) => join(dataDir, c)), ...schemaClashes.map((s) => `schema ${s}`)];
      throw new BackupError(`would replace ${what.join(', ')}: pass --force to overwrite them`);
    }

    if (manifest.database === 'postgresql' && manifest.schemas.length > 0) {
      // One transaction: a restore that fails half-way leaves the database as it was. The schemas are
      // emptied first so tables a newer migration added do not survive next to the restored ones.
      const drop = manifest.schemas.map((s) => `DROP SCHEMA IF EXISTS "${s}" CASCADE;`).join(' ');
      runPg(
        'psql',
        [
          '-X',
          '-q',
          '-v',
          'ON_ERROR_STOP=1',
          '--single-transaction',
          '-c',
          drop,
          '-f',
          join(staging, DUMP_FILE),
        ],
        opts.databaseUrl!,
      );
    }
    for (const entry of manifest.data_entries) {
      const target = join(dataDir, entry);
      rmSync(target, { recursive: true, force: true });
      renameSync(join(staging, 'data', entry), target);
    }
    return { manifest, restoredEntries: manifest.data_entries, restoredSchemas: manifest.schemas, notes };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { force: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) {
    process.stderr.write('usage: npm run restore -- <outpost-backup.tar.gz> [--force]\n');
    process.exit(2);
  }
  try {
    const r = await restore({
      archive: positionals[0]!,
      dataDir: process.env.DATA_DIR ?? './data',
      databaseUrl: process.env.DATABASE_URL || undefined,
      force: values.force,
    });
    for (const n of r.notes) process.stdout.write(`note: ${n}\n`);
    const db = r.restoredSchemas.length ? `, PostgreSQL schemas ${r.restoredSchemas.join(', ')}` : '';
    process.stdout.write(
      `restored ${r.restoredEntries.length} DATA_DIR entries${db} from a backup of ${r.manifest.created_at}; start the services again\n`,
    );
  } catch (err) {
    process.stderr.write(`restore failed: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
