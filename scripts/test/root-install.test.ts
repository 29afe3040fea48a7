import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RELOCATED_CLUSTERS } from '../src/embedded-db.js';
import { freePorts, launch, portEnv, root, signalGroup } from './helpers/processes.js';
import { scratchStacks } from './helpers/scratch.js';

/**
 * `sudo -i`, clone into /root (mode 0700), `npm start`: PostgreSQL runs as another user, who cannot
 * enter /root. The cluster (and initdb's password file) is kept where that user reaches it, and
 * DATA_DIR/postgres links to it; the closed folder stays closed.
 */
const { dirs, running } = scratchStacks(60_000);
const asRoot = process.getuid?.() === 0;
if (!asRoot)
  console.log('root-install: skipped, the tests do not run as root (npm start as root is what it checks)');

describe.skipIf(!asRoot)('npm start as root with DATA_DIR under a 0700 folder', () => {
  it('starts the embedded PostgreSQL, keeps the data across a restart, leaves the folder closed, and backs the cluster up', {
    timeout: 180_000,
  }, async () => {
    const closed = mkdtempSync(join(tmpdir(), 'outpost-root-home-'));
    dirs.push(closed);
    expect(statSync(closed).mode & 0o777).toBe(0o700);
    const dataDir = join(closed, 'clone', 'data');
    mkdirSync(dirname(dataDir), { mode: 0o700 });
    const ports = await freePorts('MQTT_PORT', 'MQTT_WS_PORT', 'NOTIFIER_PORT', 'POSTGRES_PORT');
    const env = { DATA_DIR: dataDir, HOST: '127.0.0.1', START_TIMEOUT_SECONDS: '120', ...portEnv(ports) };
    let relocated = '';
    try {
      for (const round of ['first start', 'restart']) {
        const run = launch(env, ['notifier']);
        running.push(run);
        const out = await run.ready.catch((err: Error) => {
          throw new Error(`${round}: ${err.message}`);
        });
        expect(out, round).not.toContain('initdb failed');
        const cluster = join(dataDir, 'postgres');
        expect(lstatSync(cluster).isSymbolicLink(), round).toBe(true);
        relocated = readlinkSync(cluster);
        expect(relocated.startsWith(`${RELOCATED_CLUSTERS}/`), round).toBe(true);
        // The notifier answers with its database up: the cluster is the one it uses.
        const health = await fetch(`http://127.0.0.1:${ports.NOTIFIER_PORT}/health`);
        expect(health.status, round).toBe(200);
        await signalGroup(run, 'SIGINT');
        expect(await run.exited, round).toBe(0);
      }
      expect(statSync(closed).mode & 0o777).toBe(0o700);
      expect(statSync(join(relocated, 'PG_VERSION')).isFile()).toBe(true);
      // `npm run backup` with the stack stopped copies the cluster itself, not the link to it.
      const archive = join(closed, 'backup.tar.gz');
      execFileSync(process.execPath, [join(root, 'scripts/dist/backup.js'), '--out', archive], {
        env: { PATH: process.env.PATH, DATA_DIR: dataDir },
        stdio: 'ignore',
      });
      const entries = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).split('\n');
      expect(entries).toContain('data/postgres/PG_VERSION');
    } finally {
      if (relocated) rmSync(dirname(relocated), { recursive: true, force: true });
    }
  });
});
