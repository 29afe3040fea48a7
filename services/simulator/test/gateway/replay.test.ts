import type { simulator } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeDatagram, decodeOwnship } from '../helpers/gdl90-decode.js';
import { UdpCapture } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';
import { gpx, nmeaLines, withChecksum } from '../helpers/tracks.js';

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

/** Sends a file as the request body, as a browser's fetch(url, {body: file}) does. */
async function upload(s: TestSim, body: string | Uint8Array, query = '') {
  const res = await fetch(`${s.url}/api/replay${query}`, {
    method: 'POST',
    headers: { cookie: s.api.cookie!, 'content-type': 'application/octet-stream' },
    body,
  });
  return {
    status: res.status,
    body: (await res.json()) as simulator.ReplayStatus & { detail?: string; messages?: string[] },
  };
}

const XGPS = /^XGPS[^,]+,(-?\d+\.\d{6}),(-?\d+\.\d{6}),(-?\d+\.\d),(\d+\.\d{2}),(\d+\.\d)$/;

// Points 10 s apart: between them the replay interpolates.
const FIXES = [0, 1, 2, 3].map((i) => ({
  time: new Date(Date.UTC(2026, 4, 3, 9, 0, i * 10)).toISOString(),
  lat: 47.45 + i * 0.01,
  lon: -122.3 - i * 0.005,
  altM: 100 + i * 50,
  speedKts: 100 + i * 10,
  track: 200,
}));

async function startStandalone(s: TestSim) {
  await s.api.ok('/api/config/modes', { standalone: true });
  await s.api.ok('/api/config/network', {
    efb_enabled: true,
    gdl90_enabled: true,
    efb_sim_name: 'Replay',
    efb_ip_enabled: true,
    efb_target_ips: ['127.0.0.1'],
  });
  await s.api.ok('/api/control', { action: 'start' });
}

describe('track replay', () => {
  it('NMEA log at 1×: each point at its time, interpolated between, bad lines counted, every output follows', async () => {
    const xgps = await capture();
    const gdl = await capture();
    const s = await sim({ EFB_PORT: String(xgps.port), GDL90_PORT: String(gdl.port) });
    const log = [
      ...FIXES.slice(0, 2).flatMap(nmeaLines),
      'this line is not NMEA',
      withChecksum('GPGGA,090020.00,4747.0000,X,12218.0000,W,1,08,0.9,1.0,M,0.0,M,,'),
      ...FIXES.slice(2).flatMap(nmeaLines),
    ].join('\r\n');
    const up = await upload(s, log);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({
      loaded: true,
      format: 'nmea',
      points: 4,
      skipped: 2,
      duration_s: 30,
      position_s: 0,
      speed: 1,
      started_at: FIXES[0]!.time,
    });
    // The aircraft is on the first point at once.
    const first = (await s.api.get('/api/status')).body as Record<string, number>;
    expect(first.lat).toBeCloseTo(47.45, 6);

    await startStandalone(s);
    const clock = s.clock as ManualClock;
    for (let k = 1; k <= 30; k++) {
      clock.advance(1000);
      await waitFor(() => xgps.received.length === k, 5000, 2);
      const m = XGPS.exec(xgps.received[k - 1]!.text)!;
      const i = Math.floor(k / 10);
      const f = (k % 10) / 10;
      const a = FIXES[i]!;
      const b = FIXES[Math.min(i + 1, 3)]!;
      const lat = a.lat + (b.lat - a.lat) * f;
      const lon = a.lon + (b.lon - a.lon) * f;
      expect(Number(m[2]), `second ${k}`).toBeCloseTo(lat, 6);
      expect(Number(m[1]), `second ${k}`).toBeCloseTo(lon, 6);
      expect(Number(m[3])).toBeCloseTo(a.altM + (b.altM - a.altM) * f, 1);
    }
    await waitFor(() => gdl.received.length >= 30 * 4, 5000, 2);
    const own = gdl.received.flatMap((d) => decodeDatagram(d.bytes)).filter((fr) => fr.id === 10);
    expect(Math.abs(decodeOwnship(own[9]!.message).lat - FIXES[1]!.lat)).toBeLessThan(0.0001);
    const end = (await s.api.get<simulator.ReplayStatus>('/api/replay')).body;
    expect(end).toMatchObject({ position_s: 30, finished: true });
    // Finished: it holds the last point, stopped.
    clock.advance(1000);
    await waitFor(() => xgps.received.length === 31, 5000, 2);
    expect(XGPS.exec(xgps.received[30]!.text)![5]).toBe('0.0');
    expect(Number(XGPS.exec(xgps.received[30]!.text)![2])).toBeCloseTo(FIXES[3]!.lat, 6);
  });

  it('GPX at 4×, paused, sped up, looped and seeked through the control endpoint', async () => {
    const xgps = await capture();
    const s = await sim({ EFB_PORT: String(xgps.port) });
    const up = await upload(s, gpx(FIXES), '?speed=4&loop=true');
    expect(up.body).toMatchObject({ format: 'gpx', points: 4, skipped: 0, speed: 4, loop: true });
    await startStandalone(s);
    const clock = s.clock as ManualClock;
    const lat = async () => ((await s.api.get('/api/status')).body as { lat: number }).lat;
    clock.advance(1000);
    // 4 s of track: 0.4 of the way to the second point.
    expect(await lat()).toBeCloseTo(47.454, 9);

    await s.api.ok('/api/replay/control', { paused: true });
    clock.advance(5000);
    expect(await lat()).toBeCloseTo(47.454, 9);
    const posted = await s.api.post('/api/position', { heading: 10 });
    expect(posted.status).toBe(409);

    await s.api.ok('/api/replay/control', { paused: false, speed: 16, position_s: 25 });
    expect(await lat()).toBeCloseTo(47.475, 9);
    clock.advance(1000);
    // 25 s + 16 s wraps a 30 s track to 11 s.
    expect(await lat()).toBeCloseTo(47.461, 9);
    expect((await s.api.get<simulator.ReplayStatus>('/api/replay')).body).toMatchObject({
      lap: 2,
      position_s: 11,
    });

    const bad = await s.api.post('/api/replay/control', { speed: 32 });
    expect(bad.status).toBe(422);
    const del = await s.api.request('DELETE', '/api/replay');
    expect(del.body).toMatchObject({ loaded: false });
    expect((await s.api.post('/api/replay/control', { paused: true })).status).toBe(404);
  });

  it('a file with nothing readable is a 422, a bad query too, and nothing changes', async () => {
    const s = await sim();
    await s.api.ok('/api/position', { airport_icao: 'KBFI' });
    const before = (await s.api.get('/api/status')).body;
    const junk = await upload(s, 'not a log\n$GPGGA,1*00\n');
    expect(junk.status).toBe(422);
    expect(junk.body.messages![0]).toBe('No GGA or RMC fix in the file');
    expect(junk.body.messages!.length).toBe(3);
    const emptyGpx = await upload(s, '<?xml version="1.0"?><gpx><trk><trkseg></trkseg></trk></gpx>');
    expect(emptyGpx.status).toBe(422);
    expect(emptyGpx.body.detail).toMatch(/No GPX track point/);
    for (const q of ['?speed=17', '?speed=0.5', '?format=kml', '?loop=yes', '?extra=1']) {
      const res = await upload(s, gpx(FIXES), q);
      expect(res.status, q).toBe(422);
    }
    expect((await s.api.get('/api/status')).body).toEqual(before);
    expect((await s.api.get<simulator.ReplayStatus>('/api/replay')).body.loaded).toBe(false);
  });

  it('documents the upload: a required file body of NMEA text or GPX, and the query', async () => {
    const s = await sim();
    const doc = await s.api.get<{
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { required?: boolean; content?: object }; parameters?: { name: string }[] }
        >
      >;
    }>('/api/openapi.json');
    const op = doc.body.paths['/api/replay']!.post!;
    expect(op.requestBody?.required).toBe(true);
    expect(Object.keys(op.requestBody?.content ?? {}).sort()).toEqual([
      'application/gpx+xml',
      'application/octet-stream',
      'text/plain',
    ]);
    expect(op.parameters?.map((p) => p.name).sort()).toEqual(['format', 'loop', 'paused', 'speed']);
    // A GPX file sent with its own media type plays like any other.
    const res = await fetch(`${s.url}/api/replay`, {
      method: 'POST',
      headers: { cookie: s.api.cookie!, 'content-type': 'application/gpx+xml' },
      body: gpx(FIXES),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as simulator.ReplayStatus).loaded).toBe(true);
  });

  it('refuses a file over 10 MB with 413 and takes one just under', async () => {
    const s = await sim();
    const line = `${nmeaLines(FIXES[0]!).join('\r\n')}\r\n`;
    const under = line.repeat(Math.floor((10 * 1024 * 1024 - 1) / line.length));
    expect((await upload(s, under)).status).toBe(200);
    const over = await upload(s, `${under}${'x'.repeat(line.length * 2)}`);
    expect(over.status).toBe(413);
    // Every other endpoint keeps its small limit.
    const big = await s.api.post('/api/config/network', { efb_sim_name: 'x'.repeat(100_000) });
    expect(big.status).toBe(413);
  });
});
