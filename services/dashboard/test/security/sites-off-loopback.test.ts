import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveNetns, type TwoHosts, twoHosts } from '../../../../scripts/test/helpers/netns.js';

/**
 * The generator sites (running, armed, relay, failsafe, EPO) are not for anyone on the LAN: a client
 * that reaches the dashboard from another address gets the public fleet view without them, unless it
 * gives the sites login; a client on the dashboard's own loopback still sees them. Checked for real:
 * the dashboard runs in one network namespace (host A) and the client in another (host B), joined by a
 * veth pair, so the server reads a real non-loopback peer address from its socket.
 */
const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const DASHBOARD_DIR = fileURLToPath(new URL('../../', import.meta.url));
const PORT = 8090;
const LOGIN = 'sites:sites-password-1';

let hosts: TwoHosts;
let dashboard: ChildProcess;
const scratch = mkdtempSync(join(tmpdir(), 'outpost-dash-sites-'));

/** curl in one namespace: [status, body]. */
function curl(ns: string, url: string, extra: string[] = []): [number, Record<string, unknown>] {
  const out = hosts.inNs(ns, ['curl', '-s', '-w', '\n%{http_code}', ...extra, url]);
  const at = out.lastIndexOf('\n');
  return [Number(out.slice(at + 1)), JSON.parse(out.slice(0, at)) as Record<string, unknown>];
}

/** The first fleet_state a WebSocket client in `ns` receives. */
function firstMessage(ns: string, url: string, authorization?: string): Record<string, unknown> {
  const script = `const W=require('ws');const w=new W(process.argv[1],{headers:process.argv[2]?{authorization:process.argv[2]}:{}});w.on('message',(m)=>{process.stdout.write(String(m));process.exit(0)});w.on('error',(e)=>{console.error(e.message);process.exit(1)});`;
  const out = hosts.inNs(ns, [
    'sh',
    '-c',
    `cd ${DASHBOARD_DIR} && node -e "$0" "$1" "$2"`,
    script,
    url,
    authorization ?? '',
  ]);
  return JSON.parse(out) as Record<string, unknown>;
}

const basic = `Basic ${Buffer.from(LOGIN).toString('base64')}`;

describe.skipIf(!haveNetns)('generator sites beyond loopback', () => {
  beforeAll(async () => {
    hosts = twoHosts(scratch);
    dashboard = spawn('ip', ['netns', 'exec', hosts.a, process.execPath, MAIN], {
      env: {
        PATH: process.env.PATH,
        HOST: '0.0.0.0',
        PORT: String(PORT),
        // No broker in host A: the dashboard starts without one and lists the expected site offline.
        MQTT_URL: 'mqtt://127.0.0.1:1',
        EXPECTED_SITES: 'north',
        DASHBOARD_SITES_AUTH: LOGIN,
        LOG_LEVEL: 'silent',
      },
      stdio: 'ignore',
    });
    for (let i = 0; ; i++) {
      try {
        if (curl(hosts.a, `http://127.0.0.1:${PORT}/health`)[0] === 200) break;
      } catch {
        if (i > 100) throw new Error('the dashboard did not start');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 30_000);

  afterAll(() => {
    dashboard?.kill('SIGKILL');
    hosts?.remove();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('GET /api/status from another host: the simulators, no generator state; with the sites login, the sites', () => {
    const url = `http://${hosts.addrA}:${PORT}/api/status`;
    const [status, open] = curl(hosts.b, url);
    expect(status).toBe(200);
    expect(open.simulators).toEqual([]);
    expect(open).not.toHaveProperty('generators');
    const [, signed] = curl(hosts.b, url, ['-u', LOGIN]);
    expect((signed.generators as { id: string }[]).map((g) => g.id)).toEqual(['north']);
    const [, wrong] = curl(hosts.b, url, ['-u', 'sites:not-the-password']);
    expect(wrong).not.toHaveProperty('generators');
  });

  it('GET /api/sites from another host is 401 without the login, 200 with it', () => {
    const url = `http://${hosts.addrA}:${PORT}/api/sites`;
    const [refused, why] = curl(hosts.b, url);
    expect(refused).toBe(401);
    expect(why).toEqual({ detail: 'The generator sites need the dashboard sites login' });
    const [ok, body] = curl(hosts.b, url, ['-u', LOGIN]);
    expect(ok).toBe(200);
    expect((body.generators as { id: string }[]).map((g) => g.id)).toEqual(['north']);
  });

  it('the WebSocket from another host carries no generator state without the login', () => {
    const url = `ws://${hosts.addrA}:${PORT}/ws`;
    expect(firstMessage(hosts.b, url)).not.toHaveProperty('generators');
    expect(firstMessage(hosts.b, url, basic)).toHaveProperty('generators');
  });

  it('on the dashboard host itself (loopback) the sites are shown as before', () => {
    const [, local] = curl(hosts.a, `http://127.0.0.1:${PORT}/api/status`);
    expect((local.generators as { id: string }[]).map((g) => g.id)).toEqual(['north']);
    expect(firstMessage(hosts.a, `ws://127.0.0.1:${PORT}/ws`)).toHaveProperty('generators');
  });
});
