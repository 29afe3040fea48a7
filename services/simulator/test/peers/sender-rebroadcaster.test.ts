import { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { freeUdpPort, UdpCapture } from '../helpers/net.js';
import { waitFor, waitForAsync } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

/**
 * The sim-center chain: a rig computer's simulator in sender mode feeds a rebroadcaster that fans the
 * position out to EFB tablets and retransmits the stream. Two simulators, real UDP on 127.0.0.1,
 * every format left at its default (the sender speaks NMEA).
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sim(env: Record<string, string> = {}): Promise<TestSim> {
  const s = await startTestSim(env, { clock: new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0)) });
  cleanups.push(() => s.close());
  return s;
}

async function capture(): Promise<UdpCapture> {
  const c = await UdpCapture.open('127.0.0.1');
  cleanups.push(() => c.close());
  return c;
}

type Receiver = { nmea_messages: number; bad_lines: number };

describe('sender → rebroadcaster → EFB and retransmit', () => {
  it('the EFB lines carry the sender position within 0.0001°, second after second', async () => {
    const efb = await capture();
    const retransmit = await capture();
    const listenPort = await freeUdpPort();

    const rebroadcaster = await sim({ EFB_PORT: String(efb.port) });
    await rebroadcaster.api.ok('/api/config/modes', { rebroadcaster: true });
    await rebroadcaster.api.ok('/api/config/network', {
      listen_port: listenPort,
      efb_enabled: true,
      efb_sim_name: 'Chain',
      efb_ip_enabled: true,
      efb_target_ips: ['127.0.0.1'],
      rebroadcast_udp: true,
      rebroadcast_udp_ip: '127.0.0.1',
      rebroadcast_udp_port: retransmit.port,
    });
    await rebroadcaster.api.ok('/api/control', { action: 'start' });

    const sender = await sim();
    await sender.api.ok('/api/config/modes', { sender: true });
    await sender.api.ok('/api/position', { airport_icao: 'KSEA' });
    await sender.api.ok('/api/position', { lat: 47.4502, lon: -122.3088, speed_kts: 250, heading: 135 });
    // Only the target: protocol, port and format stay at their defaults (UDP, NMEA).
    const started = await sender.api.ok('/api/config/network', { target_ip: '127.0.0.1', port: listenPort });
    expect(started.network).toMatchObject({ protocol: 'udp', sender_format: 'nmea' });
    await sender.api.ok('/api/control', { action: 'start' });

    const senderClock = sender.clock as ManualClock;
    const rebroadcasterClock = rebroadcaster.clock as ManualClock;
    for (let second = 1; second <= 4; second++) {
      senderClock.advance(1000);
      const sent = (await sender.api.get('/api/status')).body as { lat: number; lon: number };
      // Each second the sender emits RMC and GGA; wait until both arrived.
      await waitForAsync(async () => {
        const r = (await rebroadcaster.api.get('/api/status')).body.receiver as Receiver;
        return r.nmea_messages === second * 2;
      });
      const efbBefore = efb.received.length;
      rebroadcasterClock.advance(1000);
      await waitFor(() => efb.received.length > efbBefore);
      const [name, lon, lat] = efb.received.at(-1)!.text.split(',');
      expect(name).toBe('XGPSChain');
      expect(Math.abs(Number(lat) - sent.lat)).toBeLessThan(0.0001);
      expect(Math.abs(Number(lon) - sent.lon)).toBeLessThan(0.0001);
    }
    // It moved: the chain follows the aircraft rather than a fixed point.
    const first = efb.received[0]!.text.split(',');
    const last = efb.received.at(-1)!.text.split(',');
    expect(Number(last[2])).not.toBe(Number(first[2]));

    // Nothing was refused along the way, and the retransmit carries the sender's sentences as sent.
    const r = (await rebroadcaster.api.get('/api/status')).body.receiver as Receiver;
    expect(r.bad_lines).toBe(0);
    await waitFor(() => retransmit.received.length === 8);
    for (const d of retransmit.received) expect(d.text).toMatch(/^\$GP(RMC|GGA),.*\*[0-9A-F]{2}\r\n$/);
  });
});
