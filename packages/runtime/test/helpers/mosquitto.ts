import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCI, reachable } from '../../src/testing.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export const hasMosquitto = () => {
  const found = spawnSync('sh', ['-c', 'command -v mosquitto'], { encoding: 'utf8' }).status === 0;
  if (!found && isCI()) throw new Error('mosquitto is not installed; CI requires it');
  return found;
};

/** A private Mosquitto on a free loopback port that a test may stop and start again. */
export class PrivateMosquitto {
  proc: ChildProcess | null = null;
  readonly dir = mkdtempSync(join(tmpdir(), 'outpost-mosq-'));
  constructor(readonly port: number) {
    writeFileSync(
      join(this.dir, 'm.conf'),
      `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`,
    );
  }
  get url() {
    return `mqtt://127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    this.proc = spawn('mosquitto', ['-c', join(this.dir, 'm.conf')], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if (await reachable('127.0.0.1', this.port, 100)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('mosquitto did not start');
  }
  async stop(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
    this.proc = null;
  }
}
