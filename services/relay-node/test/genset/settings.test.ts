import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { readGensetSettings } from '../../src/genset/settings.js';

const base = { RELAYNODE_API_SECRET: 'secret' };

describe('genset reader settings (GENSET_*)', () => {
  it('is off without GENSET_TRANSPORT, whatever else is set', () => {
    expect(readConfig({ ...base }).genset).toBeNull();
    expect(readConfig({ ...base, GENSET_HOST: '127.0.0.1', GENSET_TRANSPORT: '' }).genset).toBeNull();
  });

  it('reads Modbus TCP with its defaults', () => {
    expect(readGensetSettings({ GENSET_TRANSPORT: 'tcp', GENSET_HOST: '192.0.2.7' })).toEqual({
      transport: 'tcp',
      host: '192.0.2.7',
      port: 502,
      unitId: 1,
      pollMs: 2000,
      timeoutMs: 1000,
      staleMs: 10_000,
    });
  });

  it('reads Modbus RTU with the line settings', () => {
    expect(
      readGensetSettings({
        GENSET_TRANSPORT: 'rtu',
        GENSET_DEVICE: '/dev/ttyUSB0',
        GENSET_UNIT_ID: '10',
        GENSET_BAUD_RATE: '115200',
        GENSET_PARITY: 'even',
        GENSET_POLL_SECONDS: '1',
        GENSET_TIMEOUT_MS: '500',
        GENSET_STALE_SECONDS: '5',
      }),
    ).toEqual({
      transport: 'rtu',
      device: '/dev/ttyUSB0',
      unitId: 10,
      baudRate: 115200,
      parity: 'even',
      stopBits: 1,
      pollMs: 1000,
      timeoutMs: 500,
      staleMs: 5000,
    });
  });

  it.each([
    [{ GENSET_TRANSPORT: 'tcp' }, 'GENSET_HOST'],
    [{ GENSET_TRANSPORT: 'rtu' }, 'GENSET_DEVICE'],
    [{ GENSET_TRANSPORT: 'udp', GENSET_HOST: 'h' }, 'GENSET_TRANSPORT'],
    [{ GENSET_TRANSPORT: 'rtu', GENSET_DEVICE: 'ttyUSB0' }, 'GENSET_DEVICE'],
    [{ GENSET_TRANSPORT: 'tcp', GENSET_HOST: 'h', GENSET_UNIT_ID: '248' }, 'GENSET_UNIT_ID'],
    [
      { GENSET_TRANSPORT: 'rtu', GENSET_DEVICE: '/dev/ttyUSB0', GENSET_BAUD_RATE: '12345' },
      'GENSET_BAUD_RATE',
    ],
    [{ GENSET_TRANSPORT: 'rtu', GENSET_DEVICE: '/dev/ttyUSB0', GENSET_PARITY: 'mark' }, 'GENSET_PARITY'],
    [{ GENSET_TRANSPORT: 'tcp', GENSET_HOST: 'h', GENSET_STALE_SECONDS: '2' }, 'GENSET_STALE_SECONDS'],
  ])('refuses %o naming %s', (env, variable) => {
    expect(() => readConfig({ ...base, ...env })).toThrow(
      new RegExp(`Invalid environment variable ${variable}`),
    );
  });
});
