import { createSocket } from 'node:dgram';
import { type Clock, ManualClock, systemClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { freeUdpPort, sendUdp, UdpCapture } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

/** Settings changed while the emulator runs: applied at once, without interrupting the other outputs. */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sim(
  env: Record<string, string>,
  clock: Clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0)),
) {
  const s = await startTestSim(env, { clock });
  cleanups.push(() => s.close());
  return s;
}

async function capture(host = '127.0.0.1', port = 0): Promise<UdpCapture> {
  const c = await UdpCapture.open(host, port);
  cleanups.push(() => c.close());
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const maxGap = (times: number[]) => Math.max(...times.slice(1).map((t, i) => t - times[i]!));
type Receiver = { messages_accepted: number };
const accepted = async (s: TestSim) =>
  ((await s.api.get('/api/status')).body.receiver as Receiver).messages_accepted;

async function rebroadcaster(
  efbPort: number,
  retransmitPort: number,
): Promise<{ s: TestSim; listen: number }> {
  const listen = await freeUdpPort();
  const s = await sim({ EFB_PORT: String(efbPort) });
  await s.api.ok('/api/config/modes', { rebroadcaster: true });
  await s.api.ok('/api/config/network', {
    listen_port: listen,
    efb_enabled: true,
    efb_sim_name: 'Live',
    efb_ip_enabled: true,
    efb_target_ips: ['127.0.0.1'],
    rebroadcast_udp: true,
    rebroadcast_udp_ip: '127.0.0.1',
    rebroadcast_udp_port: retransmitPort,
  });
  await s.api.ok('/api/control', { action: 'start' });
  return { s, listen };
}

const LINE = JSON.stringify({ lat: 47.5, lon: -122.3, alt_ft: 1200, speed_kts: 100, heading: 90 });

describe('settings while running', () => {
  it('an EFB target added while running: the existing tablet keeps its 1 Hz feed, the new one starts', async () => {
    const first = await capture('127.0.0.1');
    // A second tablet: another loopback address, the same EFB port.
    const second = await capture('127.0.0.2', first.port);
    const s = await sim({ EFB_PORT: String(first.port) }, systemClock);
    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/position', { airport_icao: 'KBFI' });
    await s.api.ok('/api/config/network', {
      efb_enabled: true,
      efb_sim_name: 'Tablet',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    await s.api.ok('/api/control', { action: 'start' });
    await sleep(2200);
    const addedAt = Date.now();
    const res = await s.api.post('/api/config/network', { efb_target_ips: ['127.0.0.1', '127.0.0.2'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      running: true,
      network: { efb_target_ips: ['127.0.0.1', '127.0.0.2'] },
    });
    await sleep(2600);

    const times = first.received.map((d) => d.at);
    expect(times.length).toBeGreaterThanOrEqual(4);
    expect(maxGap(times)).toBeLessThanOrEqual(1500);
    expect(first.received.some((d) => d.at > addedAt)).toBe(true);
    expect(second.received.length).toBeGreaterThanOrEqual(2);
    expect(second.received[0]!.text).toMatch(/^XGPSTablet,/);
    expect(second.received.every((d) => d.at >= addedAt)).toBe(true);
  }, 15_000);

  it('a new listen port reopens only the listener; EFB and retransmit carry on', async () => {
    const efb = await capture();
    const retx = await capture();
    const { s, listen } = await rebroadcaster(efb.port, retx.port);
    await sendUdp(listen, LINE);
    await waitFor(() => retx.received.length === 1);

    const moved = await freeUdpPort();
    const res = await s.api.post('/api/config/network', { listen_port: moved });
    expect(res).toMatchObject({
      status: 200,
      body: { running: true, receiver: { port: moved, listening: true } },
    });
    await sendUdp(moved, LINE);
    await waitFor(() => retx.received.length === 2);
    // The old port is closed: what is sent there is not received.
    await sendUdp(listen, LINE);
    await sleep(200);
    expect(retx.received).toHaveLength(2);
    expect(await accepted(s)).toBe(2);
    (s.clock as ManualClock).advance(1000);
    await waitFor(() => efb.received.length === 1);
    expect(efb.received[0]!.text).toMatch(/^XGPSLive,-122\.300000,47\.500000,/);
  });

  it('the retransmit target changes from the next message', async () => {
    const efb = await capture();
    const retx = await capture();
    const other = await capture();
    const { s, listen } = await rebroadcaster(efb.port, retx.port);
    await sendUdp(listen, LINE);
    await waitFor(() => retx.received.length === 1);
    await s.api.ok('/api/config/network', { rebroadcast_udp_port: other.port });
    await sendUdp(listen, LINE);
    await waitFor(() => other.received.length === 1);
    expect(retx.received).toHaveLength(1);
  });

  it('a listen port that is taken: 409 with the banner, and the old listener and settings stay', async () => {
    const efb = await capture();
    const retx = await capture();
    const { s, listen } = await rebroadcaster(efb.port, retx.port);
    const taken = createSocket('udp4');
    await new Promise<void>((r) => taken.bind(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => taken.close(() => r())));
    const port = taken.address().port;

    const res = await s.api.post('/api/config/network', { listen_port: port });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: `Address already in use: UDP port ${port} is taken; the previous settings stay in effect`,
      banner: `Address already in use: UDP port ${port} is taken`,
    });
    const st = (await s.api.get('/api/status')).body;
    expect(st).toMatchObject({ running: true, network: { listen_port: listen }, receiver: { port: listen } });
    await sendUdp(listen, LINE);
    await waitFor(() => retx.received.length === 1);
  });

  it('a change that would leave nothing to run is refused with the reason, and changes nothing', async () => {
    const efb = await capture();
    const s = await sim({ EFB_PORT: String(efb.port) });
    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/position', { airport_icao: 'KBFI' });
    await s.api.ok('/api/config/network', {
      efb_enabled: true,
      efb_sim_name: 'Only',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    await s.api.ok('/api/control', { action: 'start' });
    const res = await s.api.post('/api/config/network', { efb_enabled: false });
    expect(res).toMatchObject({
      status: 409,
      body: {
        detail:
          'The emulator is running and could not run with this change: Select at least one output (USB or EFB). ' +
          'Send the missing values with the change, or stop the emulator first',
        messages: ['Select at least one output (USB or EFB)'],
      },
    });
    expect((await s.api.get('/api/status')).body).toMatchObject({
      running: true,
      network: { efb_enabled: true },
    });
    (s.clock as ManualClock).advance(1000);
    await waitFor(() => efb.received.length === 1);
  });

  it('switching stand-alone to sender while running keeps the EFB feed and starts the NMEA stream', async () => {
    const efb = await capture();
    const nmea = await capture();
    const s = await sim({ EFB_PORT: String(efb.port) });
    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/position', { airport_icao: 'KBFI' });
    await s.api.ok('/api/config/network', {
      efb_enabled: true,
      efb_sim_name: 'Rig',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
      target_ip: '127.0.0.1',
      port: nmea.port,
    });
    await s.api.ok('/api/control', { action: 'start' });
    const clock = s.clock as ManualClock;
    clock.advance(1000);
    await waitFor(() => efb.received.length === 1);
    expect(nmea.received).toHaveLength(0);
    expect(await s.api.ok('/api/config/modes', { sender: true })).toMatchObject({
      running: true,
      mode: 'sender',
    });
    clock.advance(1000);
    await waitFor(() => efb.received.length === 2 && nmea.received.length === 2);
    expect(nmea.received.map((d) => d.text.slice(0, 6))).toEqual(['$GPRMC', '$GPGGA']);
  });

  it('ramp rates apply from the next second while running', async () => {
    const efb = await capture();
    const s = await sim({ EFB_PORT: String(efb.port) });
    await s.api.ok('/api/config/modes', { standalone: true });
    await s.api.ok('/api/position', { airport_icao: 'KBFI' });
    await s.api.ok('/api/config/network', {
      efb_enabled: true,
      efb_sim_name: 'Rig',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    await s.api.ok('/api/control', { action: 'start' });
    await s.api.ok('/api/position', { speed_kts: 300 });
    const clock = s.clock as ManualClock;
    clock.advance(1000);
    expect((await s.api.get('/api/status')).body.speed_kts).toBe(30);
    const res = await s.api.ok('/api/config/rates', { airspeed_rate_kts_per_sec: 100 });
    expect(res.rates).toMatchObject({ airspeed_rate_kts_per_sec: 100, altitude_rate_ft_per_2sec: 1000 });
    clock.advance(1000);
    expect((await s.api.get('/api/status')).body.speed_kts).toBe(130);
    expect((await s.api.post('/api/config/rates', { heading_rate_deg_per_sec: 0 })).status).toBe(422);
  });
});
