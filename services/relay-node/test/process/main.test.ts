import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasGpioChipDevice } from '@outpost/gpiochip';
import { describe, expect, it } from 'vitest';
import { freePort } from '../peers.js';
import { leased, TEST_LEASE_KEYS } from '../lease-fields.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'main.js');

function run(env: Record<string, string>, nodeArgs: string[] = []) {
  const proc = spawn(process.execPath, [...nodeArgs, MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return { proc, out: () => out, err: () => err };
}

describe('the relay node process (dist/main.js)', () => {
  it('refuses to start without RELAYNODE_API_SECRET, with one clear line', async () => {
    const p = run({ MOCK_HAT_MODE: 'true' });
    const [code] = await once(p.proc, 'exit');
    expect(code).toBe(1);
    expect(p.err().trim().split('\n')).toEqual([
      'RELAYNODE_API_SECRET is required: the relay node refuses to start without the shared API secret (no opt-out)',
    ]);
  });

  it.skipIf(hasGpioChipDevice())(
    'GPIO_MODE=gpiochip with no /dev/gpiochip* exits with one clear line',
    async () => {
      const p = run({
        RELAYNODE_API_SECRET: 'x',
        GPIO_MODE: 'gpiochip',
        RELAYNODE_PORT: '0',
        LOG_LEVEL: 'error',
      });
      const [code] = await once(p.proc, 'exit');
      expect(code).toBe(1);
      expect(p.err().trim().split('\n')).toEqual([
        'GPIO_MODE=gpiochip: no /dev/gpiochip* on this machine (not a Raspberry Pi, or the kernel has no GPIO character device); set GPIO_MODE=mock to run without GPIO',
      ]);
    },
  );

  it('a bad variable is named on one line', async () => {
    const p = run({ RELAYNODE_API_SECRET: 'x', RELAY_PIN: 'P1-7', MOCK_HAT_MODE: 'true' });
    const [code] = await once(p.proc, 'exit');
    expect(code).toBe(1);
    expect(p.err()).toMatch(/^Invalid environment variable RELAY_PIN: expected GPIOn/);
  });

  it('a bad NOTIFIER_URLS stops it with one line naming the variable, without the secret', async () => {
    const p = run({
      RELAYNODE_API_SECRET: 'x',
      MOCK_HAT_MODE: 'true',
      NOTIFIER_URLS: 'tgram://oops-SECRET/1',
    });
    const [code] = await once(p.proc, 'exit');
    expect(code).toBe(1);
    expect(p.err().trim().split('\n')).toEqual([
      'Invalid environment variable NOTIFIER_URLS: notifier URL 1 (tgram://****): tgram: expected tgram://<bot_token>/<chat_id>',
    ]);
    expect(p.out()).toBe('');
  });

  /** Starts the node with the relay ON; `trigger` ends it one way or another. */
  async function relayOnThenEnd(
    trigger: (proc: ReturnType<typeof run>['proc']) => void,
    nodeArgs: string[] = [],
  ): Promise<{ code: number | null; out: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'relaynode-main-'));
    const port = await freePort();
    const p = run(
      {
        RELAYNODE_API_SECRET: 'k',
        CONTROLLER_PUBLIC_KEY: TEST_LEASE_KEYS.publicKey,
        MOCK_HAT_MODE: 'true',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dir,
        LOG_LEVEL: 'info',
      },
      nodeArgs,
    );
    try {
      const until = Date.now() + 10_000;
      while (!p.out().includes('relay node listening')) {
        if (Date.now() > until) throw new Error(`did not start: ${p.err()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // A signed lease answering the challenge the running node issued.
      const lease = (await (
        await fetch(`http://127.0.0.1:${port}/api/lease`, { headers: { 'x-api-key': 'k' } })
      ).json()) as { challenge: string };
      const hb = await fetch(`http://127.0.0.1:${port}/api/heartbeat`, {
        method: 'POST',
        headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
        body: JSON.stringify(
          leased({ heartbeat_interval: 10, armed: true, relay_on: true }, Date.now(), {
            challenge: lease.challenge,
          }),
        ),
      });
      expect(await hb.json()).toMatchObject({ relay_on: true });
      const exited = once(p.proc, 'exit');
      trigger(p.proc);
      const [code] = await exited;
      return { code, out: p.out() };
    } finally {
      if (p.proc.exitCode === null) p.proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`serves, and on ${signal} drives the relay OFF and exits 0`, async () => {
      const r = await relayOnThenEnd((proc) => proc.kill(signal));
      expect(r.code).toBe(0);
      expect(r.out).toContain('relay node stopping: relay OFF');
      expect(r.out).toMatch(new RegExp(`"reason":"${signal}".*"msg":"relay OFF"`));
    });
  }

  it('an uncaught exception drives the relay OFF and exits 1', async () => {
    // A preloaded module that throws from a SIGUSR2 listener: an exception nothing catches.
    const preload = 'data:text/javascript,process.on("SIGUSR2",()=>{throw new Error("boom")})';
    const r = await relayOnThenEnd((proc) => proc.kill('SIGUSR2'), [`--import=${preload}`]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/"msg":"uncaught exception"/);
    expect(r.out).toMatch(/"reason":"uncaughtException".*"msg":"relay OFF"/);
  });

  it('a plain process.exit still writes the relay OFF on the way out', async () => {
    const preload = 'data:text/javascript,process.on("SIGUSR2",()=>process.exit(0))';
    const r = await relayOnThenEnd((proc) => proc.kill('SIGUSR2'), [`--import=${preload}`]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/"reason":"exit".*"msg":"relay OFF"/);
  });
});

describe('dist/relay-off.js (systemd ExecStopPost)', () => {
  it('drives the relay OFF and exits 0 without needing the secret', async () => {
    const proc = spawn(process.execPath, [join(import.meta.dirname, '..', '..', 'dist', 'relay-off.js')], {
      env: { PATH: process.env.PATH ?? '', MOCK_HAT_MODE: 'true', RELAY_BOARD: 'waveshare' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const [code] = await once(proc, 'exit');
    expect(code).toBe(0);
    expect(out.trim()).toBe('relay OFF (GPIO26, active low, mock)');
  });
});
