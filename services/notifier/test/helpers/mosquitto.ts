import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@outpost/notification-senders/testing';
import { isCI, reachable } from '@outpost/runtime/testing';

const BINARY = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((p) => existsSync(p));

/** A Mosquitto of our own on a free loopback port (a foreign broker); null locally when not installed. */
export async function startMosquitto(): Promise<{ url: string; close(): Promise<void> } | null> {
  if (!BINARY) {
    if (isCI()) throw new Error('mosquitto not installed; CI requires it');
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), 'mosq-'));
  const port = await freePort();
  writeFileSync(join(dir, 'm.conf'), `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`);
  const child: ChildProcess = spawn(BINARY, ['-c', join(dir, 'm.conf')], { stdio: 'ignore' });
  const until = Date.now() + 5000;
  while (!(await reachable('127.0.0.1', port, 200))) {
    if (Date.now() > until || child.exitCode !== null) throw new Error('mosquitto did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
