import { createConnection, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSentences, frame } from '../../src/domain/nmea/index.js';
import { freeTcpPort, freeUdpPort, sendUdp } from '../helpers/net.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Receiver = Record<string, unknown> & {
  nmea_messages: number;
  nmea_without_fix: number;
  bad_lines: number;
  checksum_errors: number;
  messages_accepted: number;
};
type Status = Record<string, unknown> & { receiver: Receiver };

async function receiver(protocol: 'udp' | 'tcp'): Promise<{ s: TestSim; port: number }> {
  const s = await startTestSim();
  cleanups.push(() => s.close());
  const port = protocol === 'udp' ? await freeUdpPort() : await freeTcpPort();
  await s.api.ok('/api/config/modes', { receiver: true });
  await s.api.ok('/api/config/network', { protocol, listen_port: port });
  await s.api.ok('/api/control', { action: 'start' });
  return { s, port };
}

const status = async (s: TestSim) => (await s.api.get<Status>('/api/status')).body;
async function until(s: TestSim, ok: (st: Status) => boolean): Promise<Status> {
  let last: Status;
  const deadline = Date.now() + 5000;
  for (;;) {
    last = await status(s);
    if (ok(last)) return last;
    if (Date.now() > deadline) throw new Error(`status never matched: ${JSON.stringify(last.receiver)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Anchorage, climbing out to the south-west; what a GPS (or another Outpost sender) would emit.
const FIX = {
  lat: 61.174361,
  lon: -149.998139,
  altitude_ft: 3500,
  speed_kts: 165,
  track: 225.5,
  timeMs: Date.UTC(2026, 5, 1, 12, 0, 0),
};
const [RMC, GGA, VTG] = buildSentences(FIX, { gprmc: true, gpgga: true, gpvtg: true }) as [
  string,
  string,
  string,
];

describe('NMEA input on the receiver', () => {
  it('UDP, one sentence per datagram: position, altitude, speed and track come from whichever sentence carries them', async () => {
    const { s, port } = await receiver('udp');
    await sendUdp(port, GGA);
    let st = await until(s, (x) => x.receiver.nmea_messages === 1);
    expect(st.lat).toBeCloseTo(FIX.lat, 5);
    expect(st.lon).toBeCloseTo(FIX.lon, 5);
    expect(st.altitude_ft).toBeCloseTo(FIX.altitude_ft, 0);
    // GGA has no speed or track: those are still the start values.
    expect(st.speed_kts).toBe(0);
    await sendUdp(port, RMC);
    st = await until(s, (x) => x.receiver.nmea_messages === 2);
    expect(st).toMatchObject({ speed_kts: 165, heading: 225.5 });
    expect(st.altitude_ft).toBeCloseTo(FIX.altitude_ft, 0);
    expect(st.receiver).toMatchObject({ receiving: true, bad_lines: 0, checksum_errors: 0 });
  });

  it('UDP, several lines in one datagram: each sentence counts', async () => {
    const { s, port } = await receiver('udp');
    const zda = buildSentences(FIX, { gpgga: false, gprmc: false, gpzda: true })[0]!;
    await sendUdp(port, RMC + GGA + VTG + zda);
    const st = await until(s, (x) => x.receiver.nmea_messages === 3);
    expect(st.receiver).toMatchObject({ nmea_without_fix: 1, messages_accepted: 3, bad_lines: 0 });
    expect(st).toMatchObject({ speed_kts: 165, heading: 225.5 });
    expect(st.lat).toBeCloseTo(FIX.lat, 5);
    expect(st.altitude_ft).toBeCloseTo(FIX.altitude_ft, 0);
  });

  it('TCP: CR LF terminated sentences, split across writes', async () => {
    const { s, port } = await receiver('tcp');
    const c: Socket = createConnection({ host: '127.0.0.1', port });
    cleanups.push(() => {
      c.destroy();
    });
    await new Promise((r) => c.once('connect', r));
    const burst = GGA + RMC;
    c.write(burst.slice(0, 30));
    await new Promise((r) => setTimeout(r, 50));
    c.write(burst.slice(30));
    const st = await until(s, (x) => x.receiver.nmea_messages === 2);
    expect(st.lat).toBeCloseTo(FIX.lat, 5);
    expect(st).toMatchObject({ speed_kts: 165, heading: 225.5, receiver: { protocol: 'tcp', bad_lines: 0 } });
  });

  it('a bad checksum is rejected and counted, and does not move the aircraft', async () => {
    const { s, port } = await receiver('udp');
    await sendUdp(port, GGA);
    const before = await until(s, (x) => x.receiver.nmea_messages === 1);
    const body = 'GPGGA,120000.00,1000.0000,N,02000.0000,E,1,08,1.0,100.0,M,0.0,M,,';
    const good = frame(body).trim();
    const wrong = `${good.slice(0, -2)}${good.endsWith('00') ? '11' : '00'}`;
    await sendUdp(port, `${wrong}\r\n`);
    const st = await until(s, (x) => x.receiver.bad_lines === 1);
    expect(st.receiver).toMatchObject({
      checksum_errors: 1,
      nmea_messages: 1,
      last_error: expect.stringMatching(/^NMEA: bad checksum/),
    });
    expect(st.lat).toBe(before.lat);
    expect(st.lon).toBe(before.lon);
  });
});
