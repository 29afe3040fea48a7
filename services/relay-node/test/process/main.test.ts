import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../peers.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'main.js');

function run(env: Record<string, string>) {
  const proc = spawn(process.execPath, [MAIN], {
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

  it('a bad variable is named on one line', async () => {
    const p = run({ RELAYNODE_API_SECRET: 'x', RELAY_PIN: 'P1-7', MOCK_HAT_MODE: 'true' });
    const [code] = await once(p.proc, 'exit');
    expect(code).toBe(1);
    expect(p.err()).toMatch(/^Invalid environment variable RELAY_PIN: expected GPIOn/);
  });

  it('serves, and on SIGTERM drives the relay OFF and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'relaynode-main-'));
    const port = await freePort();
    const p = run({
      RELAYNODE_API_SECRET: 'k',
      MOCK_HAT_MODE: 'true',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dir,
      LOG_LEVEL: 'info',
    });
    try {
      const until = Date.now() + 10_000;
      while (!p.out().includes('relay node listening')) {
        if (Date.now() > until) throw new Error(`did not start: ${p.err()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const hb = await fetch(`http://127.0.0.1:${port}/api/heartbeat`, {
        method: 'POST',
        headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
        body: JSON.stringify({ heartbeat_interval: 10, armed: true, relay_on: true }),
      });
      expect(await hb.json()).toMatchObject({ relay_on: true });
      p.proc.kill('SIGTERM');
      const [code] = await once(p.proc, 'exit');
      expect(code).toBe(0);
      expect(p.out()).toContain('relay node stopping: relay OFF');
      expect(p.out()).toMatch(/"reason":"SIGTERM".*"msg":"relay OFF"/);
    } finally {
      if (p.proc.exitCode === null) p.proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
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
