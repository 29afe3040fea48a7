/** One-shot child of the launcher: provisions the embedded PostgreSQL once it accepts connections. */
import { type ProvisionInput, provision } from './db-provision.js';
import { DatabaseError } from './embedded-db.js';
import { serveOneShot } from './one-shot.js';

serveOneShot<ProvisionInput, null>(
  async (input) => {
    await provision(input);
    return null;
  },
  (err) => err instanceof DatabaseError,
);
