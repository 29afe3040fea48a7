import { ManualClock, systemClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { parseReceiverLine } from '../../src/domain/receiver-parse.js';
import { freeUdpPort, UdpCapture } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';
import { WsClient } from '../helpers/ws.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sim(
  env: Record<string, string> = {},
  clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0)),
) {
  const s = await startTestSim(env, { clock });
  cleanups.push(() => s.close());
  return s;
}

async function capture(host: string, port = 0): Promise<UdpCapture> {
  const c = await UdpCapture.open(host, port);
  cleanups.push(() => c.close());
  return c;
}

const XGPS = /^XGPS([^,]+),(-?\d+\.\d{6}),(-?\d+\.\d{6}),(-?\d+\.\d),(\d+\.\d{2}),(\d+\.\d)$/;

function nmeaOk(sentence: string): boolean {
  const m = /^\$([^*]+)\*([0-9A-F]{2})\r\n$/.exec(sentence);
  if (!m) return false;
  let cs = 0;
  for (const ch of m[1]!) cs ^= ch.charCodeAt(0);
  return cs === Number.parseInt(m[2]!, 16) && sentence.length <= 82;
}

async function startStandaloneEfb(s: TestSim, targets: string[]) {
  await s.api.ok('/api/position', { airport_icao: 'KSFO' });
  await s.api.ok('/api/position', { speed_kts: 120, heading: 90, altitude_ft: 3000 });
  await s.api.ok('/api/config/modes', { standalone: true });
  await s.api.ok('/api/config/network', {
    efb_enabled: true,
    efb_sim_name: 'Sim1',
    efb_broadcast: true,
    efb_ip_enabled: targets.length > 0,
    efb_target_ips: targets,
  });
  await s.api.ok('/api/control', { action: 'start' });
}

describe('EFB XGPS output', () => {
  it('a range of EFB addresses expands to one target each', async () => {
    const s = await sim();
    await startStandaloneEfb(s, ['10.1.2.20-22', '10.1.2.21']);
    // Only the configured targets are inspected: the clock never advances, so nothing is sent.
    const status = (await s.api.get('/api/status')).body;
    expect((status.outputs as { efb: { targets: string[] } }).efb.targets).toEqual([
      '127.255.255.255:49002',
      '10.1.2.20:49002',
      '10.1.2.21:49002',
      '10.1.2.22:49002',
    ]);
    await s.api.ok('/api/control', { action: 'stop' });
  });

  it('one ForeFlight line per second to the loopback broadcast address and to each listed address', async () => {
    const port = await freeUdpPort();
    const bcast = await capture('127.255.255.255', port);
    const uni = await capture('127.0.0.1', port);
    const s = await sim({ EFB_PORT: String(port) });
    await startStandaloneEfb(s, ['127.0.0.1']);
    const clock = s.clock as ManualClock;
    for (let i = 1; i <= 3; i++) {
      clock.advance(1000);
      await waitFor(() => bcast.received.length === i && uni.received.length === i);
      const status = (await s.api.get('/api/status')).body as Record<string, number>;
      const m = XGPS.exec(bcast.received[i - 1]!.text);
      expect(m, bcast.received[i - 1]!.text).not.toBeNull();
      const [, name, lon, lat, altM, track, speedMs] = m!;
      expect(name).toBe('Sim1');
      expect(Number(lon)).toBeCloseTo(status.lon!, 6);
      expect(Number(lat)).toBeCloseTo(status.lat!, 6);
      expect(Number(altM)).toBeCloseTo(status.altitude_ft! * 0.3048, 1);
      expect(Number(track)).toBeCloseTo(status.heading! % 360, 2);
      expect(Number(speedMs)).toBeCloseTo((status.speed_kts! * 1852) / 3600, 1);
      expect(uni.received[i - 1]!.text).toBe(bcast.received[i - 1]!.text);
    }
    // The ramps ran: 30 kt/s from 0 towards 120, and the aircraft moved east.
    const last = XGPS.exec(bcast.received[2]!.text)!;
    expect(Number(last[6])).toBeCloseTo((90 * 1852) / 3600, 1);
    expect(Number(last[2])).toBeGreaterThan(-122.374889);
  });

  it('keeps a 1 Hz cadence on the real clock', async () => {
    const port = await freeUdpPort();
    const bcast = await capture('127.255.255.255', port);
    const s = await sim({ EFB_PORT: String(port) }, systemClock as unknown as ManualClock);
    await startStandaloneEfb(s, []);
    await waitFor(() => bcast.received.length >= 3, 4000);
    const gaps = bcast.received.slice(1, 3).map((d, i) => d.at - bcast.received[i]!.at);
    for (const g of gaps) expect(Math.abs(g - 1000)).toBeLessThan(150);
  });
});

describe('sender', () => {
  it('UDP: each selected NMEA sentence, valid checksums, once a second', async () => {
    const cap = await capture('127.0.0.1');
    const s = await sim();
    await s.api.ok('/api/position', { airport_icao: 'KSFO' });
    await s.api.ok('/api/config/modes', { sender: true });
    await s.api.ok('/api/config/nmea', { gpgga: true, gprmc: true, gpvtg: true, gpzda: true });
    await s.api.ok('/api/config/network', { protocol: 'udp', target_ip: '127.0.0.1', port: cap.port });
    await s.api.ok('/api/control', { action: 'start' });
    (s.clock as ManualClock).advance(1000);
    await waitFor(() => cap.received.length === 4);
    const texts = cap.received.map((d) => d.text);
    expect(texts.map((t) => t.slice(0, 6))).toEqual(['$GPRMC', '$GPGGA', '$GPVTG', '$GPZDA']);
    for (const t of texts) expect(nmeaOk(t), t).toBe(true);
    expect(texts[1]).toMatch(/^\$GPGGA,120001\.00,3737\.\d+,N,12222\.\d+,W,1,/);
  });

  it('JSON lines a receiver can ingest', async () => {
    const cap = await capture('127.0.0.1');
    const s = await sim();
    await s.api.ok('/api/position', { airport_icao: 'KSFO' });
    await s.api.ok('/api/config/modes', { sender: true });
    await s.api.ok('/api/config/network', {
      protocol: 'udp',
      target_ip: '127.0.0.1',
      port: cap.port,
      sender_format: 'json',
    });
    await s.api.ok('/api/control', { action: 'start' });
    (s.clock as ManualClock).advance(1000);
    await waitFor(() => cap.received.length === 1);
    const parsed = parseReceiverLine(cap.received[0]!.text);
    expect(parsed).toMatchObject({ ok: true, format: 'json', position: { altitude_ft: 13 } });
  });
});

describe('WebSocket /ws', () => {
  it('status on connect, ping/pong, airport selection broadcast to every browser, 1 Hz nmea and position', async () => {
    const s = await sim();
    const a = await WsClient.connect(s.url, s.api.cookie);
    const b = await WsClient.connect(s.url, s.api.cookie);
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const hello = await b.next('status_update');
    expect(hello.data).toMatchObject({ running: false, airport_icao: null });

    b.send({ type: 'ping' });
    await b.next('pong');
    b.send('not json at all');

    await s.api.ok('/api/position', { airport_icao: 'kjfk' });
    for (const c of [a, b]) {
      const upd = await c.next('status_update', (m) => m.data.airport_icao === 'KJFK');
      expect(upd.data).toMatchObject({ airport_icao: 'KJFK', altitude_ft: 13 });
    }

    await s.api.ok('/api/config/modes', { standalone: true, usb_output: false });
    await s.api.ok('/api/config/network', {
      efb_enabled: true,
      efb_sim_name: 'X',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
    });
    await s.api.ok('/api/control', { action: 'start' });
    await a.next('status_update', (m) => m.data.running === true);
    (s.clock as ManualClock).advance(2000);
    await waitFor(() => a.of('nmea_output').length === 2 && a.of('position_update').length === 2);
    const nmea = a.of('nmea_output')[1]!.data as { sentences: string[] };
    expect(nmea.sentences.map((x) => x.slice(0, 6))).toEqual(['$GPRMC', '$GPGGA']);
    expect(a.of('position_update')[1]!.data).toMatchObject({ airport_icao: 'KJFK', altitude_ft: 13 });
  });
});
