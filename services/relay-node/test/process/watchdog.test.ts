import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startWatchdog } from '../../src/system/watchdog.js';

/**
 * WatchdogSec= in the relay node's unit: the node must send WATCHDOG=1 to $NOTIFY_SOCKET (a unix
 * datagram socket) at half of WATCHDOG_USEC. The receiving end here is a real datagram socket,
 * bound by python3 the way systemd binds its own, printing each datagram it gets.
 */

const RECEIVER = `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("ready", flush=True)
while True:
    data = s.recv(4096)
    print(data.decode(), flush=True)
`;

const haveTools =
  spawnSync('python3', ['-c', 'print(1)']).status === 0 &&
  spawnSync('systemd-notify', ['--version']).status === 0;
const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'main.js');

interface Receiver {
  path: string;
  messages: () => string[];
  close(): Promise<void>;
}

async function receiver(): Promise<Receiver> {
  const dir = mkdtempSync(join(tmpdir(), 'notify-'));
  const path = join(dir, 'notify.sock');
  const proc = spawn('python3', ['-c', RECEIVER, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes('ready')) {
        clearInterval(t);
        resolve();
      }
    }, 10);
    proc.once('exit', (code) => reject(new Error(`receiver exited ${code}`)));
  });
  return {
    path,
    messages: () =>
      out
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && l !== 'ready'),
    async close() {
      proc.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const until = async (probe: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const log = { info: () => {}, warn: () => {} };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(!haveTools)('systemd watchdog pings (WatchdogSec=)', () => {
  it('sends WATCHDOG=1 to $NOTIFY_SOCKET at half of WATCHDOG_USEC, and stops when told', async () => {
    const r = await receiver();
    cleanups.push(() => r.close());
    const w = startWatchdog(log, { NOTIFY_SOCKET: r.path, WATCHDOG_USEC: '400000', PATH: process.env.PATH });
    expect(w).not.toBeNull();
    cleanups.push(() => w?.stop());
    expect(w?.intervalMs).toBe(200);
    const pings = () => r.messages().filter((m) => m === 'WATCHDOG=1').length;
    await until(() => pings() >= 3, 5000);
    // systemd-notify follows each message with a barrier, so its exit cannot race the manager.
    expect(new Set(r.messages())).toEqual(new Set(['WATCHDOG=1', 'BARRIER=1']));
    w?.stop();
    await new Promise((res) => setTimeout(res, 300)); // a ping already on its way may still land
    const after = pings();
    await new Promise((res) => setTimeout(res, 600));
    expect(pings()).toBe(after);
  });

  it('no NOTIFY_SOCKET, no WATCHDOG_USEC, or a watchdog meant for another pid: nothing is started', () => {
    expect(startWatchdog(log, { WATCHDOG_USEC: '400000' })).toBeNull();
    expect(startWatchdog(log, { NOTIFY_SOCKET: '/run/x', WATCHDOG_USEC: '0' })).toBeNull();
    expect(
      startWatchdog(log, {
        NOTIFY_SOCKET: '/run/x',
        WATCHDOG_USEC: '400000',
        WATCHDOG_PID: String(process.pid + 1),
      }),
    ).toBeNull();
  });

  it('the relay node process pings the socket systemd hands it', async () => {
    const r = await receiver();
    cleanups.push(() => r.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'relaynode-watchdog-'));
    const proc: ChildProcess = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        RELAYNODE_API_SECRET: 'watchdog-test-secret',
        GPIO_MODE: 'mock',
        HOST: '127.0.0.1',
        RELAYNODE_PORT: '0',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'error',
        NOTIFY_SOCKET: r.path,
        WATCHDOG_USEC: '400000',
      },
      stdio: 'ignore',
    });
    cleanups.push(async () => {
      if (proc.exitCode === null) {
        proc.kill('SIGTERM');
        await once(proc, 'exit');
      }
      rmSync(dataDir, { recursive: true, force: true });
    });
    await until(() => r.messages().filter((m) => m === 'WATCHDOG=1').length >= 3, 15_000);
  }, 30_000);
});
