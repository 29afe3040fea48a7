import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type RunningBroker, startBroker } from '@outpost/broker';
import { type FleetSimulator, FleetState } from '@outpost/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWs, waitFor } from './helpers.js';

/**
 * Real processes on the embedded broker: the dashboard (dist/main.js) and two GPS simulators
 * (services/simulator/dist/main.js) auto-started as rebroadcasters, fed a JSON position stream over
 * UDP on 127.0.0.1 and retransmitting to a socket of this test. One simulator is killed with SIGKILL.
 */
const DASHBOARD_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const SIMULATOR_MAIN = fileURLToPath(new URL('../../simulator/dist/main.js', import.meta.url));

let broker: RunningBroker;
const procs: ChildProcess[] = [];
const sims = new Map<string, ChildProcess>();
const sockets: Socket[] = [];
const feeds: NodeJS.Timeout[] = [];

function udpSocket(): Promise<Socket> {
  const s = createSocket('udp4');
  s.on('error', () => {});
  return new Promise((resolve) => s.bind(0, '127.0.0.1', () => resolve(s)));
}

async function freeUdpPort(): Promise<number> {
  const s = await udpSocket();
  const { port } = s.address();
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
let dashboardUrl = '';

function run(script: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  child.on('exit', (code, signal) => {
    if (code && code !== 0) process.stderr.write(`${script} exited ${code} ${signal ?? ''}: ${err}\n`);
  });
  procs.push(child);
  return child;
}

beforeAll(async () => {
  for (const [what, file] of [
    ['the dashboard (npm run build)', DASHBOARD_MAIN],
    ['the simulator (build services/simulator)', SIMULATOR_MAIN],
  ] as const) {
    if (!existsSync(file)) throw new Error(`${what} is not built: ${file} missing`);
  }
  broker = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const dashboard = run(DASHBOARD_MAIN, {
    MQTT_URL: broker.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    EXPECTED_SIMULATORS: 'sim-a,sim-b,sim-never,sim-idle',
  });
  dashboardUrl = `http://127.0.0.1:${port}`;
  const end = Date.now() + 10_000;
  for (;;) {
    if (dashboard.exitCode !== null) throw new Error('the dashboard process exited');
    const ok = await fetch(`${dashboardUrl}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > end) throw new Error('the dashboard did not answer /health within 10 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const [id, lat] of [
    ['sim-a', 47.45],
    ['sim-b', 61.17],
  ] as const) {
    const listenPort = await freeUdpPort();
    const sink = await udpSocket();
    sockets.push(sink);
    const sim = run(SIMULATOR_MAIN, {
      MQTT_URL: broker.url,
      SERVICE_ID: id,
      PORT: '0',
      HOST: '127.0.0.1',
      PASSWORD: 'integration-secret',
      AUTO_START_MODE: 'rebroadcaster',
      AUTO_START_PROTOCOL: 'udp',
      AUTO_START_LISTEN_PORT: String(listenPort),
      LISTEN_HOST: '127.0.0.1',
      AUTO_START_UDP_RETRANSMIT: 'true',
      AUTO_START_UDP_RETRANSMIT_IP: '127.0.0.1',
      AUTO_START_UDP_RETRANSMIT_PORT: String(sink.address().port),
      SIMULATOR_IP: '127.0.0.1',
    });
    sims.set(id, sim);
    // The position source a rebroadcaster relays: one JSON line every half second.
    const feed = await udpSocket();
    sockets.push(feed);
    const line = `${JSON.stringify({ lat, lon: -122.31, alt_ft: 1200, speed_kts: 90, heading: 180 })}\n`;
    feeds.push(setInterval(() => feed.send(line, listenPort, '127.0.0.1'), 500));
  }
}, 30_000);

afterAll(async () => {
  for (const f of feeds) clearInterval(f);
  for (const s of sockets) s.close();
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  await broker?.close();
});

const isSim = (id: string) => (s: { id: string }) => s.id === id;

describe('fleet dashboard with real processes', () => {
  it('shows both simulators online with sim_reachable true for 127.0.0.1; a missing one offline', async () => {
    const { ws, messages } = await openWs(`${dashboardUrl.replace('http', 'ws')}/ws`);
    const state = await waitFor(
      () => {
        const last = messages.at(-1);
        if (!last) return null;
        const m = FleetState.parse(last);
        const a = m.simulators.find(isSim('sim-a'));
        const b = m.simulators.find(isSim('sim-b'));
        return a?.online && b?.online && a.sim_reachable && b.sim_reachable ? m : null;
      },
      10_000,
      'both simulators online and reachable',
    );
    expect(state.simulators.map((s) => s.id)).toEqual(['sim-a', 'sim-b', 'sim-never', 'sim-idle']);
    expect(state.simulators.find(isSim('sim-never'))).toMatchObject({
      online: false,
      available: false,
      status: 'offline',
    });
    expect(state.simulators.find(isSim('sim-b'))).toMatchObject({
      mode: 'rebroadcaster',
      running: true,
      receiving_udp: true,
      lat: 61.17,
      lon: -122.31,
      status: 'online',
      receiving_input: true,
      simulator_ip: '127.0.0.1',
    });
    ws.close();
  }, 15_000);

  it('a simulator killed with SIGKILL shows offline within 3 s through its last will; the other stays online', async () => {
    const { ws, messages } = await openWs(`${dashboardUrl.replace('http', 'ws')}/ws`);
    await waitFor(() => messages.length > 0, 3000, 'first fleet_state');
    const victim = sims.get('sim-b') as ChildProcess;
    const killedAt = Date.now();
    victim.kill('SIGKILL');
    const seen = await waitFor(
      () => {
        const last = messages.at(-1);
        const b = last ? FleetState.parse(last).simulators.find(isSim('sim-b')) : undefined;
        return b && !b.online ? { at: Date.now(), b, msg: FleetState.parse(last) } : null;
      },
      6000,
      'sim-b offline',
    );
    expect(seen.at - killedAt).toBeLessThan(3000);
    // Offline because the broker published its will, not because its heartbeat aged out.
    expect(seen.b.available).toBe(false);
    expect(seen.msg.simulators.find(isSim('sim-a'))?.online).toBe(true);
    ws.close();
  }, 15_000);

  it('a rebroadcaster whose feed stops shows "feed lost" within 10 s, its process still up', async () => {
    const { ws, messages } = await openWs(`${dashboardUrl.replace('http', 'ws')}/ws`);
    await waitFor(
      () => {
        const last = messages.at(-1);
        return last && FleetState.parse(last).simulators.find(isSim('sim-a'))?.status === 'online';
      },
      5000,
      'sim-a online',
    );
    const stoppedAt = Date.now();
    clearInterval(feeds[0]);
    const seen = await waitFor(
      () => {
        const last = messages.at(-1);
        const a = last ? FleetState.parse(last).simulators.find(isSim('sim-a')) : undefined;
        return a?.status === 'feed lost' ? { at: Date.now(), a } : null;
      },
      12_000,
      'sim-a feed lost',
    );
    expect(seen.at - stoppedAt).toBeLessThan(10_000);
    expect(seen.a).toMatchObject({ available: true, running: true, receiving_input: false, online: false });
    expect(seen.a.last_input_age_seconds).toBeGreaterThan(5);
    ws.close();
  }, 20_000);

  it('an idle simulator that is not rebroadcasting shows "online, idle" from its availability, not offline', async () => {
    // The stack's default simulator: connected to the bus, never started, so it sends no heartbeat.
    run(SIMULATOR_MAIN, {
      MQTT_URL: broker.url,
      SERVICE_ID: 'sim-idle',
      PORT: '0',
      HOST: '127.0.0.1',
      PASSWORD: 'integration-secret',
    });
    const end = Date.now() + 15_000;
    let idle: FleetSimulator | undefined;
    while (!idle?.available && Date.now() < end) {
      if (idle) await new Promise((r) => setTimeout(r, 100));
      const body = FleetState.parse(await (await fetch(`${dashboardUrl}/api/status`)).json());
      idle = body.simulators.find(isSim('sim-idle'));
    }
    expect(idle).toMatchObject({
      status: 'online, idle',
      available: true,
      online: false,
      last_heartbeat_age_seconds: null,
    });
    // The same word on the live stream.
    const { ws, next } = await openWs(`${dashboardUrl.replace('http', 'ws')}/ws`);
    const live = FleetState.parse(await next()).simulators.find(isSim('sim-idle'));
    expect(live?.status).toBe('online, idle');
    ws.close();
  }, 25_000);

  it('the dashboard process refuses every mutating method on every path', async () => {
    for (const path of ['/api/status', '/ws', '/', '/health', '/api/openapi.json', '/api/anything']) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await fetch(`${dashboardUrl}${path}`, { method, body: '{}' });
        expect(res.status, `${method} ${path}`).toBe(405);
      }
    }
    const status = FleetState.parse(await (await fetch(`${dashboardUrl}/api/status`)).json());
    expect(status.simulators).toHaveLength(4);
  });
});
