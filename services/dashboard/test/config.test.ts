import { fileURLToPath } from 'node:url';
import { ConfigError } from '@outpost/runtime';
import { describe, expect, it } from 'vitest';
import { parseDashboardConfig } from '../src/config.js';

describe('dashboard configuration (environment only)', () => {
  it('defaults: port 8090, no auth, publishing on, no expected simulators', () => {
    const c = parseDashboardConfig({});
    expect(c).toMatchObject({
      port: 8090,
      host: '0.0.0.0',
      auth: null,
      publish: true,
      expectedSimulators: [],
      expectedSites: [],
      serviceId: 'main',
      prefix: 'outpost',
    });
  });

  it('the map: the built-in archive and no online tiles by default; MAP_PMTILES and MAP_TILES_URL checked', () => {
    expect(parseDashboardConfig({}).map).toEqual({ pmtiles: undefined, tilesUrl: undefined });
    const archive = fileURLToPath(new URL('../../../packages/ui/map/basemap.pmtiles', import.meta.url));
    const url = 'https://tiles.example.org/{z}/{x}/{y}.png';
    expect(parseDashboardConfig({ MAP_PMTILES: archive, MAP_TILES_URL: url }).map).toEqual({
      pmtiles: archive,
      tilesUrl: url,
    });
    expect(() => parseDashboardConfig({ MAP_PMTILES: '/nonexistent/region.pmtiles' })).toThrow(/MAP_PMTILES/);
    expect(() => parseDashboardConfig({ MAP_PMTILES: fileURLToPath(import.meta.url) })).toThrow(
      /not a PMTiles archive/,
    );
    expect(() => parseDashboardConfig({ MAP_TILES_URL: 'http://tiles.example.org/{z}/{x}/{y}.png' })).toThrow(
      /MAP_TILES_URL/,
    );
  });

  it('DASHBOARD_PORT wins over PORT; lists are trimmed and de-duplicated', () => {
    const c = parseDashboardConfig({
      PORT: '9000',
      DASHBOARD_PORT: '9100',
      EXPECTED_SIMULATORS: ' sim-a, sim_b ,,sim-a ',
      EXPECTED_SITES: 'main,north:north-relay',
      DASHBOARD_AUTH: 'ops:pa:ss',
      DASHBOARD_PUBLISH: 'false',
    });
    expect(c.port).toBe(9100);
    expect(c.expectedSimulators).toEqual(['sim-a', 'sim_b']);
    expect(c.expectedSites).toEqual([
      { id: 'main', relaynode: 'main' },
      { id: 'north', relaynode: 'north-relay' },
    ]);
    expect(c.auth).toEqual({ username: 'ops', password: 'pa:ss' });
    expect(c.publish).toBe(false);
  });

  it('places generator sites from SITE_LOCATIONS, adding a located site EXPECTED_SITES leaves out', () => {
    const c = parseDashboardConfig({
      EXPECTED_SITES: 'main,north:north-relay',
      SITE_LOCATIONS: 'north:45.59:-122.6, shed:-33.9:151.2',
    });
    expect(c.expectedSites).toEqual([
      { id: 'main', relaynode: 'main' },
      { id: 'north', relaynode: 'north-relay', location: { lat: 45.59, lon: -122.6 } },
      { id: 'shed', relaynode: 'shed', location: { lat: -33.9, lon: 151.2 } },
    ]);
  });

  it.each([
    ['EXPECTED_SIMULATORS', 'sim-a,bad/id'],
    ['EXPECTED_SIMULATORS', 'sim+'],
    ['EXPECTED_SITES', 'a:b:c'],
    ['SITE_LOCATIONS', 'main:91:0'],
    ['SITE_LOCATIONS', 'main:37.6,-122.3'],
    ['SITE_LOCATIONS', 'main:north:west'],
    ['DASHBOARD_AUTH', 'nocolon'],
    ['DASHBOARD_PORT', '70000'],
  ])('a bad %s is refused naming the variable', (name, value) => {
    expect(() => parseDashboardConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseDashboardConfig({ [name]: value })).toThrow(
      new RegExp(`Invalid environment variable ${name}`),
    );
  });
});
