/**
 * One-shot child of the launcher: copies an earlier version's PGlite folders into the embedded
 * PostgreSQL (migrate-pglite.ts), printing a line per service. PGlite and drizzle are loaded here only.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseRole } from './database-roles.js';
import { migratePglite } from './migrate-pglite.js';
import { serveOneShot } from './one-shot.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface UpgradeInput {
  dataDir: string;
  roles: DatabaseRole[];
  roleUrls: Record<DatabaseRole, string>;
  adminUrl: string;
}

const say = (line: string) => process.stdout.write(`${'postgres'.padEnd(10)}│ ${line}\n`);

serveOneShot<UpgradeInput, null>(
  async ({ dataDir, roles, roleUrls, adminUrl }) => {
    say(
      `moving ${roles.map((r) => `DATA_DIR/${r}`).join(' and ')} (PGlite, an earlier version) into PostgreSQL`,
    );
    for (const m of await migratePglite({
      dataDir,
      roles,
      roleUrl: (role) => roleUrls[role],
      adminUrl,
      migrationsFolder: (role) => join(root, 'services', role, 'drizzle'),
    })) {
      const rows = Object.values(m.tables).reduce((a, b) => a + b, 0);
      say(
        `${m.role}: ${rows} rows in ${Object.keys(m.tables).length} tables copied; the old folder is kept as ${m.keptAt}`,
      );
    }
    return null;
  },
  // Any failure leaves the folders as they were; the launcher says so around this message.
  (err) => err instanceof Error,
);
