import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Services that own data: each gets its own role and schema in the embedded PostgreSQL. */
export const DATABASE_ROLES = ['controller', 'notifier'] as const;
export type DatabaseRole = (typeof DATABASE_ROLES)[number];

/** The PGlite folders of an earlier version under DATA_DIR. */
export function pgliteFolders(dataDir: string): DatabaseRole[] {
  return DATABASE_ROLES.filter((role) => existsSync(join(dataDir, role, 'PG_VERSION')));
}
