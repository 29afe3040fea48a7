import { ConfigError } from '@outpost/runtime';
import { describe, expect, it } from 'vitest';
import { parseSimulatorConfig } from '../../src/config.js';

const gen = () => 'generated';

describe('configuration variables', () => {
  it('every spec variable has its documented default', () => {
    const c = parseSimulatorConfig({}, gen);
    expect(c).toMatchObject({
      httpPort: 8080,
      HOST: '0.0.0.0',
      USERNAME: 'admin',
      password: 'generated',
      passwordGenerated: true,
      BYPASS_AUTH: false,
      DEFAULT_ALT_FT: 0,
      DEFAULT_AIRSPEED_KTS: 0,
      DEFAULT_HEADING: 360,
      ALTITUDE_RATE_FT_PER_2SEC: 1000,
      AIRSPEED_RATE_KTS_PER_SEC: 30,
      HEADING_RATE_DEG_PER_SEC: 3,
      AUTO_START_LISTEN_PORT: 12000,
      AUTO_START_PROTOCOL: 'udp',
      AUTO_START_EFB_ENABLED: false,
      AUTO_START_EFB_BROADCAST: false,
      AUTO_START_EFB_TARGET_IPS: '',
      AUTO_START_EFB_SIM_NAME: '',
      AUTO_START_USB_ENABLED: false,
      AUTO_START_USB_DEVICE: '',
      AUTO_START_UDP_RETRANSMIT: false,
      AUTO_START_UDP_RETRANSMIT_IP: '',
      AUTO_START_UDP_RETRANSMIT_PORT: 12001,
      SIMULATOR_IP: '',
      SERIAL_BAUDRATE: 115200,
      EFB_SIM_NAME: '',
      EFB_BROADCAST_ADDRESS: '255.255.255.255',
      EFB_PORT: 49002,
      SERVICE_ID: 'main',
    });
    expect(c.AUTO_START_MODE).toBeUndefined();
    expect(c.DEFAULT_LAT).toBeCloseTo(37.619, 2);
    expect(c.DEFAULT_LON).toBeCloseTo(-122.375, 2);
  });

  it('SIMULATOR_PORT wins over PORT; a set PASSWORD is used as is', () => {
    expect(parseSimulatorConfig({ PORT: '9000' }, gen).httpPort).toBe(9000);
    expect(parseSimulatorConfig({ PORT: '9000', SIMULATOR_PORT: '9100' }, gen).httpPort).toBe(9100);
    const c = parseSimulatorConfig({ PASSWORD: 's3cret' }, gen);
    expect(c).toMatchObject({ password: 's3cret', passwordGenerated: false });
  });

  it('empty values fall back to defaults; bad values name the variable', () => {
    const c = parseSimulatorConfig({ AUTO_START_MODE: '', AUTO_START_PROTOCOL: 'TCP' }, gen);
    expect(c.AUTO_START_MODE).toBeUndefined();
    expect(c.AUTO_START_PROTOCOL).toBe('tcp');
    expect(parseSimulatorConfig({ AUTO_START_MODE: 'Rebroadcaster' }, gen).AUTO_START_MODE).toBe(
      'rebroadcaster',
    );
    expect(() => parseSimulatorConfig({ AUTO_START_UDP_RETRANSMIT_IP: 'host.example' }, gen)).toThrow(
      ConfigError,
    );
    expect(() => parseSimulatorConfig({ DEFAULT_LAT: '95' }, gen)).toThrow(/DEFAULT_LAT/);
    expect(() => parseSimulatorConfig({ BYPASS_AUTH: 'maybe' }, gen)).toThrow(/BYPASS_AUTH/);
    expect(() => parseSimulatorConfig({ SERIAL_BAUDRATE: '1234' }, gen)).toThrow(
      'Invalid environment variable SERIAL_BAUDRATE: unsupported baud rate',
    );
  });
});
