import { ManualClock } from '@outpost/runtime';
import geodesic from 'geographiclib-geodesic';
import { afterEach, describe, expect, it } from 'vitest';
import { parseLat, parseLon, parseSentence } from '../domain/nmea-test-parser.js';
import { UdpCapture } from '../helpers/net.js';
import { waitFor } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sim(): Promise<TestSim> {
  const s = await startTestSim({}, { clock: new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0)) });
  cleanups.push(() => s.close());
  return s;
}

// OurAirports runways.csv (upstream commit edd76ff3…), KSFO 10L/28R: he_latitude_deg, he_longitude_deg, he_heading_degT.
const THRESHOLD_28R = { lat: 37.61349868774414, lon: -122.35700225830078 };
const HEADING_28R = 298;

const metres = (a: { lat: number; lon: number }, b: { lat: number; lon: number }) =>
  geodesic.Geodesic.WGS84.Inverse(a.lat, a.lon, b.lat, b.lon).s12!;
const angleDiff = (a: number, b: number) => Math.abs(((((a - b) % 360) + 540) % 360) - 180);

describe('line up on a runway', () => {
  it("KSFO 28R: the aircraft stands on OurAirports' 28R threshold, on the ground, heading 298° true, and RMC, GGA and HDT say so", async () => {
    const s = await sim();
    const nmea = await UdpCapture.open('127.0.0.1');
    cleanups.push(() => nmea.close());
    const status = await s.api.ok('/api/position/runway', { airport: 'KSFO', runway: '28R' });
    expect(status).toMatchObject({
      airport_icao: 'KSFO',
      speed_kts: 0,
      altitude_ft: 13,
      target_speed_kts: 0,
    });
    expect(metres(status as { lat: number; lon: number }, THRESHOLD_28R)).toBeLessThan(30);
    expect(angleDiff(status.heading as number, HEADING_28R)).toBeLessThanOrEqual(2);
    expect(angleDiff(status.target_heading as number, HEADING_28R)).toBeLessThanOrEqual(2);

    await s.api.ok('/api/config/modes', { sender: true });
    await s.api.ok('/api/config/nmea', {
      gpgga: true,
      gprmc: true,
      gphdt: true,
      gpgll: false,
      gpgsa: false,
      gpgsv: false,
      gpvtg: false,
      gpzda: false,
    });
    await s.api.ok('/api/config/network', { protocol: 'udp', target_ip: '127.0.0.1', port: nmea.port });
    await s.api.ok('/api/control', { action: 'start' });
    for (let i = 0; i < 3; i++) (s.clock as ManualClock).advance(1000);
    await waitFor(() => nmea.received.length >= 9, 5000);
    const sentences = nmea.received.slice(-3).map((d) => parseSentence(d.text));
    const [rmc, gga, hdt] = ['RMC', 'GGA', 'HDT'].map((t) => sentences.find((x) => x.type === t)!);
    const rmcAt = {
      lat: parseLat(rmc!.fields[2]!, rmc!.fields[3]!),
      lon: parseLon(rmc!.fields[4]!, rmc!.fields[5]!),
    };
    const ggaAt = {
      lat: parseLat(gga!.fields[1]!, gga!.fields[2]!),
      lon: parseLon(gga!.fields[3]!, gga!.fields[4]!),
    };
    // Still standing there after three seconds: lined up, not rolling.
    expect(metres(rmcAt, THRESHOLD_28R)).toBeLessThan(30);
    expect(metres(ggaAt, THRESHOLD_28R)).toBeLessThan(30);
    expect(Number(rmc!.fields[6])).toBe(0);
    expect(angleDiff(Number(hdt!.fields[0]), HEADING_28R)).toBeLessThanOrEqual(2);
    // GGA altitude in metres: the 28R threshold's 13 ft.
    expect(Number(gga!.fields[8])).toBeCloseTo(13 * 0.3048, 0);
  });

  it('reads the runway end as a person types it, and says what an airport has when the end is not one of them', async () => {
    const s = await sim();
    const lined = await s.api.ok('/api/position/runway', { airport: 'ksfo', runway: '1r' });
    expect(lined).toMatchObject({ airport_icao: 'KSFO', heading: 28 });

    const noRunway = await s.api.post('/api/position/runway', { airport: 'KSFO', runway: '27' });
    expect(noRunway.status).toBe(422);
    expect(noRunway.body).toEqual({
      detail: 'KSFO has no runway 27; its runways are 10L, 28R, 10R, 28L, 01R, 19L, 01L, 19R',
      messages: ['KSFO has no runway 27; its runways are 10L, 28R, 10R, 28L, 01R, 19L, 01L, 19R'],
    });
    const noAirport = await s.api.post('/api/position/runway', { airport: 'QQQQ', runway: '28R' });
    expect(noAirport.status).toBe(404);
    expect(noAirport.body).toEqual({ detail: 'Airport QQQQ not found' });
    const bad = await s.api.post('/api/position/runway', { airport: 'KSFO' });
    expect(bad.status).toBe(422);
    expect(bad.body.messages).toEqual(['runway: Invalid input: expected string, received undefined']);
    // Nothing moved on a refusal.
    expect((await s.api.get('/api/status')).body).toMatchObject({ airport_icao: 'KSFO', heading: 28 });
  });

  it('is refused while a flight plan is flying', async () => {
    const s = await sim();
    const route = {
      points: [{ icao: 'KSFO' }, { icao: 'KOAK' }],
      cruise_altitude_ft: 3000,
      cruise_speed_kts: 120,
    };
    expect((await s.api.request('PUT', '/api/flightplan', route)).status).toBe(200);
    const r = await s.api.post('/api/position/runway', { airport: 'KSFO', runway: '28R' });
    expect(r.status).toBe(409);
  });
});

describe('runway lists', () => {
  it("gives an airport's runways with both thresholds, and 404 for an unknown code", async () => {
    const s = await sim();
    const r = await s.api.get<{ runways: Array<Record<string, unknown>> }>('/api/airports/runways/ksfo');
    expect(r.status).toBe(200);
    expect(r.body.runways).toHaveLength(4);
    expect(r.body.runways[0]).toEqual({
      icao: 'KSFO',
      length_ft: 11870,
      width_ft: 200,
      surface: 'ASP',
      le: { ident: '10L', lat: 37.6287, lon: -122.393, elevation_ft: 5, heading_deg: 118 },
      he: { ident: '28R', lat: 37.6135, lon: -122.357, elevation_ft: 13, heading_deg: 298 },
    });
    expect((await s.api.get('/api/airports/runways/QQQQ')).status).toBe(404);
  });

  it('gives the runways around a point for the map', async () => {
    const s = await sim();
    const r = await s.api.get<{ runways: Array<{ icao: string }> }>(
      '/api/runways/near?lat=37.62&lon=-122.37&radius_nm=12',
    );
    expect(r.status).toBe(200);
    const icaos = new Set(r.body.runways.map((x) => x.icao));
    expect([...icaos]).toEqual(expect.arrayContaining(['KSFO', 'KOAK']));
    expect(r.body.runways.filter((x) => x.icao === 'KSFO')).toHaveLength(4);
    expect((await s.api.get('/api/runways/near?lat=37.62')).status).toBe(422);
  });
});
