#!/usr/bin/env node
/**
 * The controller unit's ExecStartPost (as root, "+"): once the controller answers /health it has made
 * its first user and keeps only the password's hash, so the clear admin password goes from both places
 * write-env.mjs left it: DATA_DIR/secrets.json and the unit's one-time environment file.
 *
 *   node scripts/dist/forget-admin.js /etc/outpost/controller.first-start.env
 *
 * Reads DATA_DIR, CONTROLLER_PORT, HOST and TLS_CERT_FILE from the unit's environment, MAINPID from
 * systemd. Always exits 0 within its deadline, so a slow first start never fails the unit: a controller
 * not healthy in time leaves the password where it is, and the next start tries again.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { forgetAdminPassword } from './admin-password.js';
import { waitForHealth } from './health.js';
import { SECRETS_FILE_NAME } from './secrets-file.js';

/** Under systemd's default TimeoutStartSec (90 s), which also bounds ExecStartPost. */
const DEADLINE_MS = 60_000;

function holdsPassword(dataDir: string): boolean {
  try {
    const secrets = JSON.parse(readFileSync(join(dataDir, SECRETS_FILE_NAME), 'utf8'));
    return typeof secrets.ADMIN_PASSWORD === 'string';
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  if (!pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const envFile = process.argv[2];
  const dataDir = resolve(process.env.DATA_DIR ?? './data');
  if (!(envFile && existsSync(envFile)) && !holdsPassword(dataDir)) return;
  const host =
    process.env.HOST && !['0.0.0.0', '::', ''].includes(process.env.HOST) ? process.env.HOST : '127.0.0.1';
  const port = Number(process.env.CONTROLLER_PORT || process.env.PORT || 8000);
  const scheme = process.env.TLS_CERT_FILE ? 'https' : 'http';
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}/health`;
  const mainPid = Number(process.env.MAINPID ?? 0);
  try {
    // NODE_EXTRA_CA_CERTS (tls.env) is in this process's environment: node trusts the site's CA.
    await waitForHealth(url, Date.now() + DEADLINE_MS, () => alive(mainPid));
  } catch (err) {
    process.stdout.write(`admin password kept until the controller is healthy: ${(err as Error).message}\n`);
    return;
  }
  const forgot = forgetAdminPassword(dataDir);
  if (envFile) rmSync(envFile, { force: true });
  process.stdout.write(
    `the controller has its first user: the admin password is no longer kept in ${join(dataDir, SECRETS_FILE_NAME)}${envFile ? ` nor ${envFile}` : ''}${forgot ? '' : ' (it was not there)'}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`forget-admin: ${String((err as Error).stack ?? err)}\n`);
});
