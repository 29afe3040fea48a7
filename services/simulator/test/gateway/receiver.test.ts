import { createSocket } from 'node:dgram';
import { createConnection, type Socket } from 'node:net';
import type { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { freeTcpPort, freeUdpPort, sendUdp, UdpCapture } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sim(): Promise<TestSim> {
  const s = await startTestSim();
  cleanups.push(() => s.close());
  return s;
}

async function startReceiver(s: TestSim, protocol: 'udp' | 'tcp'): Promise<number> {
  const port = protocol === 'udp' ? await freeUdpPort() : await freeTcpPort();
  await s.api.ok('/api/config/modes', { receiver: true });
  await s.api.ok('/api/config/network', { protocol, listen_port: port });
  await s.api.ok('/api/control', { action: 'start' });
  return port;
}

async function tcpClient(port: number): Promise<Socket> {
  const c = createConnection({ host: '127.0.0.1', port });
  await new Promise((r) => c.once('connect', r));
  cleanups.push(() => {
    c.destroy();
  });
  return c;
}

type Status = Record<string, unknown> & { receiver: Record<string, unknown> };
const status = async (s: TestSim) => (await s.api.get<Status>('/api/status')).body;

const JSON_LINE = JSON.stringify({
  lat: 47.4502,
  lon: -122.3088,
  alt_ft: 4500,
  speed_kts: 180,
  heading: 270,
});
const CYGNUS_LINE = '$CYGNUS:lat=61.1744&lon=-149.9964&heading=45&magvar=15&alt=1200&airspeed=95';

describe('receiver', () => {
  for (const protocol of ['udp', 'tcp'] as const) {
    it(`${protocol.toUpperCase()}: JSON then CYGNUS update the position`, async () => {
      const s = await sim();
      const port = await startReceiver(s, protocol);
      const send =
        protocol === 'udp'
          ? (line: string) => sendUdp(port, line)
          : await tcpClient(port).then((c) => async (line: string) => {
              c.write(`${line}\n`);
            });
      await send(JSON_LINE);
      let st = await waitForStatus(s, (x) => x.receiver.json_messages === 1);
      expect(st).toMatchObject({
        lat: 47.4502,
        lon: -122.3088,
        altitude_ft: 4500,
        speed_kts: 180,
        heading: 270,
      });
      await send(CYGNUS_LINE);
      st = await waitForStatus(s, (x) => x.receiver.cygnus_messages === 1);
      expect(st).toMatchObject({
        lat: 61.1744,
        lon: -149.9964,
        altitude_ft: 1200,
        speed_kts: 95,
        heading: 45,
      });
      expect(st.receiver).toMatchObject({
        listening: true,
        protocol,
        port,
        messages_accepted: 2,
        bad_lines: 0,
        receiving: true,
      });
    });
  }

  it('TCP: 10,000 garbage lines are counted and dropped; the process stays healthy and still takes good lines', async () => {
    const s = await sim();
    const port = await startReceiver(s, 'tcp');
    const c = await tcpClient(port);
    const garbage: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      garbage.push(
        i % 4 === 0
          ? `{"lat": ${i}, "lon": "x"}`
          : i % 4 === 1
            ? `$CYGNUS:lat=abc&lon=${i}`
            : i % 4 === 2
              ? '\u0000\u00ff{{{'
              : `${'z'.repeat(i % 300)}`,
      );
    }
    const started = performance.now();
    c.write(`${garbage.join('\n')}\n${'y'.repeat(10_000)}\n${JSON_LINE}\n`);
    const st = await waitForStatus(s, (x) => x.receiver.json_messages === 1, 10_000);
    const elapsedMs = performance.now() - started;
    expect(st.receiver).toMatchObject({ messages_accepted: 1, bad_lines: 10_001, oversize_lines: 1 });
    expect(st.receiver.last_error).toEqual(expect.any(String));
    expect(st.lat).toBe(47.4502);
    expect((await s.api.get('/health')).body).toMatchObject({ status: 'healthy', running: true });
    expect(elapsedMs).toBeLessThan(5000);
  });

  it('UDP: garbage datagrams (including one too large) are counted, never fatal', async () => {
    const s = await sim();
    const port = await startReceiver(s, 'udp');
    const sock = createSocket('udp4');
    cleanups.push(() => new Promise<void>((r) => sock.close(() => r())));
    for (let i = 0; i < 200; i++) {
      await new Promise<void>((r) => sock.send(`garbage ${i}`, port, '127.0.0.1', () => r()));
    }
    await new Promise<void>((r) => sock.send(Buffer.alloc(8000, 0x41), port, '127.0.0.1', () => r()));
    await sendUdp(port, JSON_LINE);
    const st = await waitForStatus(s, (x) => x.receiver.json_messages === 1);
    expect(st.receiver).toMatchObject({ bad_lines: 201, oversize_lines: 1, messages_accepted: 1 });
  });

  it('a feed older than 5 s stops driving outputs and the status says so', async () => {
    const s = await sim();
    const port = await startReceiver(s, 'udp');
    await sendUdp(port, JSON_LINE);
    await waitForStatus(s, (x) => x.receiver.receiving === true);
    (s.clock as ManualClock).advance(6000);
    const st = await status(s);
    expect(st.receiver).toMatchObject({ receiving: false, last_input_age_seconds: 6 });
  });
});

describe('rebroadcaster', () => {
  it('fans received positions out to EFB once a second and retransmits each message over UDP', async () => {
    const efbPort = await freeUdpPort();
    const efb = await UdpCapture.open('127.0.0.1', efbPort);
    const retx = await UdpCapture.open('127.0.0.1');
    cleanups.push(
      () => efb.close(),
      () => retx.close(),
    );
    const s = await startTestSim({ EFB_PORT: String(efbPort) });
    cleanups.push(() => s.close());
    const port = await freeUdpPort();
    await s.api.ok('/api/config/modes', { rebroadcaster: true });
    await s.api.ok('/api/config/network', {
      protocol: 'udp',
      listen_port: port,
      efb_enabled: true,
      efb_sim_name: 'Rebro',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
      rebroadcast_udp: true,
      rebroadcast_udp_ip: '127.0.0.1',
      rebroadcast_udp_port: retx.port,
    });
    await s.api.ok('/api/control', { action: 'start' });
    // Nothing received yet: no made-up position goes out.
    (s.clock as ManualClock).advance(1000);
    await sendUdp(port, CYGNUS_LINE);
    await waitFor(() => retx.received.length === 1);
    expect(retx.received[0]!.text).toBe(`${CYGNUS_LINE}\n`);
    expect(efb.received).toHaveLength(0);
    (s.clock as ManualClock).advance(1000);
    await waitFor(() => efb.received.length === 1);
    expect(efb.received[0]!.text).toBe('XGPSRebro,-149.996400,61.174400,365.8,45.00,48.9');
  });
});

async function waitForStatus(s: TestSim, ok: (st: Status) => boolean, timeoutMs = 3000): Promise<Status> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const st = await status(s);
    if (ok(st)) return st;
    if (Date.now() > deadline) throw new Error(`status never matched: ${JSON.stringify(st.receiver)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
