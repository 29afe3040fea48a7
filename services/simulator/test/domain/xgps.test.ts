import { describe, expect, it } from 'vitest';
import { formatXgps, sanitizeSimName, XGPS_PORT } from '../../src/domain/xgps.js';

describe('XGPS line for ForeFlight / Garmin Pilot', () => {
  it('matches the documented example XGPSMy Sim,-80.11,34.55,1200.1,359.05,55.6 (fixed decimals)', () => {
    const line = formatXgps('My Sim', {
      lat: 34.55,
      lon: -80.11,
      altitude_ft: 1200.1 / 0.3048,
      track: 359.05,
      speed_kts: 55.6 / (1852 / 3600),
    });
    expect(line).toBe('XGPSMy Sim,-80.110000,34.550000,1200.1,359.05,55.6');
    expect(XGPS_PORT).toBe(49002);
  });

  it('orders lon before lat and converts feet to metres and knots to m/s', () => {
    const line = formatXgps('CL350', {
      lat: 51.4706,
      lon: -0.461941,
      altitude_ft: 10000,
      track: 90,
      speed_kts: 250,
    });
    const [head, lon, lat, alt, track, speed] = line.split(',');
    expect(head).toBe('XGPSCL350');
    expect(Number(lon)).toBeCloseTo(-0.461941, 6);
    expect(Number(lat)).toBeCloseTo(51.4706, 6);
    expect(alt).toBe('3048.0');
    expect(track).toBe('90.00');
    expect(speed).toBe('128.6');
  });

  it('reports north as 0.00, never 360, and clamps negative speed', () => {
    const line = formatXgps('S', { lat: 0, lon: 0, altitude_ft: 0, track: 360, speed_kts: -5 });
    expect(line).toBe('XGPSS,0.000000,0.000000,0.0,0.00,0.0');
    expect(
      formatXgps('S', { lat: 0, lon: 0, altitude_ft: 0, track: 359.999, speed_kts: 0 }).split(',')[4],
    ).toBe('0.00');
  });

  it('strips commas and control characters from the simulator name so fields cannot shift', () => {
    expect(sanitizeSimName(' Sim,One\r\n')).toBe('SimOne');
    expect(
      formatXgps('a,b', { lat: 1, lon: 2, altitude_ft: 0, track: 1, speed_kts: 0 }).split(','),
    ).toHaveLength(6);
  });
});
