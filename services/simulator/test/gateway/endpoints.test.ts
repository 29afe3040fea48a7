import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ManualClock } from '@outpost/runtime';
import * as airports from '../../src/airports/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/peers.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

let sim: TestSim;
const dev = tempDir('sim-dev-');
beforeAll(async () => {
  writeFileSync(join(dev.path, 'ttyUSB0'), '');
  writeFileSync(join(dev.path, 'ttyS0'), '');
  mkdirSync(join(dev.path, 'serial', 'by-id'), { recursive: true });
  symlinkSync('../../ttyUSB0', join(dev.path, 'serial', 'by-id', 'usb-Prolific_PL2303-if00-port0'));
  sim = await startTestSim({}, { devRoot: dev.path });
});
afterAll(async () => {
  await sim.close();
  dev.remove();
});

type Airport = {
  icao: string;
  name: string;
  lat: number;
  lon: number;
  elevation_ft: number;
  elevation_known: boolean;
};

describe('airports', () => {
  it('lookup normalizes to uppercase and answers {airport}; unknown code is 404 {detail}', async () => {
    const res = await sim.api.get<{ airport: Airport }>('/api/airports/lookup/ksfo');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['airport']);
    expect(res.body.airport).toMatchObject({ icao: 'KSFO', elevation_ft: 13, elevation_known: true });
    expect(Object.keys(res.body.airport).sort()).toEqual([
      'elevation_ft',
      'elevation_known',
      'icao',
      'lat',
      'lon',
      'name',
    ]);
    const missing = await sim.api.get('/api/airports/lookup/ZZZZ');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Airport ZZZZ not found' });
  });

  it('an airport without a known elevation is marked in lookup and search, and starts at 0 ft', async () => {
    expect((await sim.api.get<{ airport: Airport }>('/api/airports/lookup/aaxx')).body.airport).toMatchObject(
      {
        icao: 'AAXX',
        elevation_ft: 0,
        elevation_known: false,
      },
    );
    const found = await sim.api.get<{ airports: Airport[] }>('/api/airports/search?q=Rothera');
    expect(found.body.airports.find((a) => a.icao === 'AAXX')).toMatchObject({ elevation_known: false });
    const selected = await sim.api.ok('/api/position', { airport_icao: 'AAXX' });
    expect(selected).toMatchObject({ airport_icao: 'AAXX', altitude_ft: 0, lat: -67.566941 });
  });

  it('search: prefix or substring, limit defaults to 10, empty query and no match give []', async () => {
    const k = await sim.api.get<{ airports: Airport[] }>('/api/airports/search?q=k');
    expect(k.body.airports).toHaveLength(10);
    const five = await sim.api.get<{ airports: Airport[] }>('/api/airports/search?q=k&limit=5');
    expect(five.body.airports).toHaveLength(5);
    const named = await sim.api.get<{ airports: Airport[] }>('/api/airports/search?q=san%20francisco');
    expect(named.body.airports.map((a) => a.icao)).toContain('KSFO');
    expect((await sim.api.get('/api/airports/search?q=')).body).toEqual({ airports: [] });
    expect((await sim.api.get('/api/airports/search?q=qqqqqqq')).body).toEqual({ airports: [] });
    expect((await sim.api.get('/api/airports/search')).status).toBe(422);
    expect((await sim.api.get('/api/airports/search?q=k&limit=0')).status).toBe(422);
  });

  it('near takes lat and lon together: one alone is a 422 naming the other, not a NaN', async () => {
    const found = await sim.api.get<{ airports: Airport[] }>(
      '/api/airports/near?lat=37.62&lon=-122.38&radius_nm=5',
    );
    expect(found.status).toBe(200);
    expect(found.body.airports[0]?.icao).toBe('KSFO');
    for (const [query, missing] of [
      ['lat=37.62', 'lon'],
      ['lon=-122.38', 'lat'],
    ] as const) {
      const res = await sim.api.get<{ detail: string }>(`/api/airports/near?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.detail, query).toContain(missing);
      expect(res.body.detail, query).not.toContain('NaN');
    }
  });

  it('list returns the whole database', async () => {
    const res = await sim.api.get<{ airports: Airport[] }>('/api/airports/list');
    expect(res.body.airports).toHaveLength(airports.count);
    expect(res.body.airports.find((a) => a.icao === 'KSFO')).toEqual(airports.lookup('KSFO'));
  });
});

describe('serial', () => {
  it('lists USB-serial devices without udev, by stable id first', async () => {
    const res = await sim.api.get<{ devices: Array<Record<string, unknown>> }>('/api/serial/devices');
    expect(res.body.devices).toEqual([
      expect.objectContaining({
        device: join(dev.path, 'serial', 'by-id', 'usb-Prolific_PL2303-if00-port0'),
        path: join(dev.path, 'ttyUSB0'),
      }),
    ]);
  });

  it('select and config set device and baud rate; a non-/dev path or odd baud is 422', async () => {
    await sim.api.ok('/api/serial/select', { device: '/dev/ttyUSB3' });
    const st = await sim.api.ok('/api/config/serial', { baudrate: 9600 });
    expect(st.serial).toEqual({ device: '/dev/ttyUSB3', baudrate: 9600 });
    expect((await sim.api.post('/api/serial/select', { device: '/etc/passwd' })).status).toBe(422);
    expect((await sim.api.post('/api/config/serial', { baudrate: 1234 })).status).toBe(422);
  });

  it('SERIAL_BAUDRATE defaults to 115200', async () => {
    const s = await startTestSim();
    try {
      expect((await s.api.get('/api/status')).body.serial).toEqual({ device: null, baudrate: 115200 });
    } finally {
      await s.close();
    }
  });
});

describe('position', () => {
  it('airport selection jumps there at field elevation; altitude, speed and heading ramp at the configured rates', async () => {
    const s = await startTestSim({ HEADING_RATE_DEG_PER_SEC: '5' });
    try {
      const den = airports.lookup('KDEN')!;
      await s.api.ok('/api/position', { airport_icao: 'KDEN' });
      let st = (await s.api.get<Record<string, number | string>>('/api/status')).body;
      expect(st).toMatchObject({
        airport_icao: 'KDEN',
        altitude_ft: den.elevation_ft,
        lat: den.lat,
        lon: den.lon,
      });
      await s.api.ok('/api/position', { altitude_ft: den.elevation_ft + 3000, speed_kts: 100, heading: 20 });
      await s.api.ok('/api/config/modes', { standalone: true });
      await s.api.ok('/api/config/network', {
        efb_enabled: true,
        efb_sim_name: 'R',
        efb_ip_enabled: true,
        efb_target_ips: ['127.0.0.1'],
      });
      await s.api.ok('/api/control', { action: 'start' });
      (s.clock as ManualClock).advance(2000);
      st = (await s.api.get<Record<string, number | string>>('/api/status')).body;
      expect(st).toMatchObject({
        altitude_ft: den.elevation_ft + 1000,
        speed_kts: 60,
        heading: 10,
        target_altitude_ft: den.elevation_ft + 3000,
        target_heading: 20,
      });
      const bad = await s.api.post('/api/position', { lat: 91 });
      expect(bad.status).toBe(422);
      expect((await s.api.post('/api/position', { airport_icao: 'QQQQ' })).status).toBe(404);
    } finally {
      await s.close();
    }
  });
});

describe('OpenAPI', () => {
  it('version 1.0.0 and every endpoint of the spec table', async () => {
    const res = await sim.api.get<{
      info: { version: string };
      paths: Record<string, Record<string, unknown>>;
    }>('/api/openapi.json');
    expect(res.body.info.version).toBe('1.0.0');
    const ops = Object.entries(res.body.paths).flatMap(([p, m]) =>
      Object.keys(m).map((k) => `${k.toUpperCase()} ${p}`),
    );
    for (const op of [
      'POST /api/auth/login',
      'POST /api/auth/logout',
      'GET /api/auth/check',
      'GET /api/status',
      'POST /api/control',
      'POST /api/position',
      'POST /api/config/modes',
      'POST /api/config/network',
      'POST /api/config/nmea',
      'POST /api/config/serial',
      'GET /api/serial/devices',
      'POST /api/serial/select',
      'GET /api/airports/lookup/{icao}',
      'GET /api/airports/search',
      'GET /api/airports/list',
    ]) {
      expect(ops).toContain(op);
    }
    for (const doc of ['/api/docs', '/api/redoc']) {
      const withSession = await fetch(sim.url + doc, { headers: { cookie: sim.api.cookie ?? '' } });
      expect(withSession.status).toBe(200);
      // Like every /api/* but login, the documents need a session.
      expect((await fetch(sim.url + doc)).status).toBe(401);
    }
  });
});
