#!/usr/bin/env node
/**
 * The embedded PostgreSQL on its own, for systemd (outpost-postgres.service): the same server, cluster
 * (DATA_DIR/postgres), roles and settings that `npm start` runs, on POSTGRES_PORT (default 54320).
 * SIGTERM or SIGINT stops it with a fast shutdown; if the server dies this process exits 1, and
 * systemd restarts it.
 */
import { resolve } from 'node:path';
import { DatabaseError, startEmbeddedDatabase } from './embedded-db.js';
import { readPostgresSecrets } from './postgres-secrets.js';
import { resolveSecrets, SecretError } from './secrets.js';

export const DEFAULT_POSTGRES_PORT = 54320;

async function main(): Promise<void> {
  const dataDir = resolve(process.env.DATA_DIR ?? './data');
  const port = Number(process.env.POSTGRES_PORT || DEFAULT_POSTGRES_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new DatabaseError('Invalid environment variable POSTGRES_PORT: expected a port number');
  }
  // Under systemd its own file (postgres-secrets.json); secrets.json is root's there.
  const secrets = readPostgresSecrets(dataDir) ?? resolveSecrets(dataDir, {}).secrets;
  const db = await startEmbeddedDatabase({
    dataDir,
    secrets,
    port,
    deadline: Date.now() + 120_000,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`PostgreSQL ready on 127.0.0.1:${port} (${resolve(dataDir, 'postgres')})\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    db.proc.kill(db.stopSignal ?? 'SIGINT');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const code = await db.exited;
  if (!stopping) {
    process.stderr.write(`PostgreSQL exited unexpectedly (code ${code})\n`);
    process.exit(1);
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  const known = err instanceof DatabaseError || err instanceof SecretError;
  process.stderr.write(
    `outpost-postgres: ${known ? (err as Error).message : String((err as Error).stack ?? err)}\n`,
  );
  process.exit(1);
});
