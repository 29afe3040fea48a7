import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCI, reachable } from '@outpost/runtime/testing';

const BINARIES = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.once('error', reject);
  });
}

export interface Mosquitto {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  cleanup(): Promise<void>;
}

/** A private Mosquitto on a free loopback port that can be stopped and started again (same port). */
export async function startMosquitto(): Promise<Mosquitto | null> {
  const bin = BINARIES.find((b) => existsSync(b));
  if (!bin) {
    if (isCI()) throw new Error('mosquitto is not installed; CI requires it');
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), 'controller-mqtt-'));
  // Started as root, mosquitto drops to its own user; it must still be able to save its sessions here.
  chmodSync(dir, 0o777);
  const port = await freePort();
  const conf = join(dir, 'm.conf');
  // Persistence keeps QoS 1 sessions across a stop/start, like a production broker restart.
  writeFileSync(
    conf,
    `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location ${dir}/\n`,
  );
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(bin, ['-c', conf], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if (await reachable('127.0.0.1', port, 200)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('mosquitto did not start');
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    });
  };
  await start();
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    stop,
    start,
    cleanup: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
