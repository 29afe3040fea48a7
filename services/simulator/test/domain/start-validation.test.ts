import { describe, expect, it } from 'vitest';
import {
  expandTargets,
  type StartConfig,
  START_MESSAGES as M,
  validateStart,
} from '../../src/domain/start-validation.js';

function cfg(over: {
  modes?: Partial<StartConfig['modes']>;
  network?: Partial<StartConfig['network']>;
  airport_icao?: string | null;
  serial_device?: string | null;
}): StartConfig {
  return {
    modes: {
      standalone: false,
      sender: false,
      receiver: false,
      rebroadcaster: false,
      usb_output: false,
      ...over.modes,
    },
    airport_icao: over.airport_icao === undefined ? 'KJFK' : over.airport_icao,
    serial_device: over.serial_device ?? null,
    network: {
      protocol: 'udp',
      target_ip: '',
      efb_enabled: false,
      efb_sim_name: '',
      efb_broadcast: false,
      efb_ip_enabled: false,
      efb_target_ips: [],
      rebroadcast_usb: false,
      rebroadcast_udp: false,
      rebroadcast_udp_ip: '',
      ...over.network,
    },
  };
}

describe('start validation messages', () => {
  it('asks for an operating mode and an airport when nothing is chosen', () => {
    expect(validateStart(cfg({ airport_icao: null }))).toEqual([
      'Select an operating mode',
      'Select an airport',
    ]);
    expect(validateStart(cfg({}))).toEqual(['Select an operating mode']);
  });

  it('stand-alone needs an airport and USB and/or EFB', () => {
    expect(validateStart(cfg({ modes: { standalone: true }, airport_icao: null }))).toEqual([
      'Select an airport',
      'Select at least one output (USB or EFB)',
    ]);
    expect(validateStart(cfg({ modes: { standalone: true, usb_output: true } }))).toEqual([
      'Select a USB device',
    ]);
    expect(
      validateStart(cfg({ modes: { standalone: true, usb_output: true }, serial_device: '/dev/ttyUSB0' })),
    ).toEqual([]);
  });

  it('sender needs the target IP of the NMEA output', () => {
    expect(validateStart(cfg({ modes: { sender: true } }))).toEqual([
      'Enter target IP address for NMEA output',
    ]);
    expect(validateStart(cfg({ modes: { sender: true }, network: { target_ip: '127.0.0.1' } }))).toEqual([]);
  });

  it('receiver needs no airport; a USB output needs a device', () => {
    expect(validateStart(cfg({ modes: { receiver: true }, airport_icao: null }))).toEqual([]);
    expect(validateStart(cfg({ modes: { receiver: true, usb_output: true } }))).toEqual([M.usbDevice]);
  });

  it('EFB: pick broadcast or IP, name the simulator, give at least one IP', () => {
    const base = { modes: { standalone: true } };
    expect(validateStart(cfg({ ...base, network: { efb_enabled: true } }))).toEqual([
      'Select at least one output (USB or EFB)',
      'Select Broadcast or Garmin Pilot/ForeFlight (IP Address)',
    ]);
    expect(validateStart(cfg({ ...base, network: { efb_enabled: true, efb_broadcast: true } }))).toEqual([
      'Enter a simulator name for EFB output',
    ]);
    expect(
      validateStart(
        cfg({ ...base, network: { efb_enabled: true, efb_ip_enabled: true, efb_sim_name: 'CL350' } }),
      ),
    ).toEqual(['Enter IP address(es) for EFB output']);
    expect(
      validateStart(
        cfg({
          ...base,
          network: { efb_enabled: true, efb_ip_enabled: true, efb_sim_name: '  ', efb_target_ips: ['bogus'] },
        }),
      ),
    ).toEqual(['Enter a simulator name for EFB output', 'Enter IP address(es) for EFB output']);
    expect(
      validateStart(
        cfg({
          ...base,
          network: {
            efb_enabled: true,
            efb_ip_enabled: true,
            efb_sim_name: 'CL350',
            efb_target_ips: ['127.0.0.1'],
          },
        }),
      ),
    ).toEqual([]);
  });

  it('rebroadcaster needs an output, a device for USB and a target for UDP retransmit', () => {
    expect(validateStart(cfg({ modes: { rebroadcaster: true }, airport_icao: null }))).toEqual([
      'Select at least one rebroadcast output (USB, EFB, or UDP)',
    ]);
    expect(
      validateStart(cfg({ modes: { rebroadcaster: true }, network: { rebroadcast_udp: true } })),
    ).toEqual([
      'Select at least one rebroadcast output (USB, EFB, or UDP)',
      'Enter target IP for UDP retransmit',
    ]);
    expect(
      validateStart(cfg({ modes: { rebroadcaster: true }, network: { rebroadcast_usb: true } })),
    ).toEqual(['Select a USB device for rebroadcast']);
    expect(
      validateStart(
        cfg({
          modes: { rebroadcaster: true },
          network: { rebroadcast_udp: true, rebroadcast_udp_ip: '127.0.0.1' },
        }),
      ),
    ).toEqual([]);
  });

  it('reports every missing choice at once, each once', () => {
    const out = validateStart(
      cfg({
        modes: { sender: true, standalone: true, usb_output: true },
        airport_icao: null,
        network: { efb_enabled: true, efb_ip_enabled: true },
      }),
    );
    expect(out).toEqual([M.airport, M.usbDevice, M.senderTargetIp, M.efbSimName, M.efbTargetIps]);
  });
});

describe('EFB target expansion', () => {
  it('expands last-octet and full ranges, keeps order, removes duplicates', () => {
    expect(expandTargets(['10.0.0.10-12', '10.0.0.5'])).toEqual([
      '10.0.0.10',
      '10.0.0.11',
      '10.0.0.12',
      '10.0.0.5',
    ]);
    expect(expandTargets(['10.200.50.254-10.200.51.1'])).toEqual([
      '10.200.50.254',
      '10.200.50.255',
      '10.200.51.0',
      '10.200.51.1',
    ]);
    expect(expandTargets(['127.0.0.1', '127.0.0.1-2', '127.0.0.3, 127.0.0.1'])).toEqual([
      '127.0.0.1',
      '127.0.0.2',
      '127.0.0.3',
    ]);
  });

  it('drops invalid and reversed entries and bounds a range to 256 addresses', () => {
    expect(expandTargets(['1.2.3', '1.2.3.256', 'a.b.c.d', '10.0.0.20-10', '', ' ', '1.2.3.4-x'])).toEqual(
      [],
    );
    const wide = expandTargets(['10.0.0.0-10.255.255.255']);
    expect(wide).toHaveLength(256);
    expect(wide.at(-1)).toBe('10.0.0.255');
    expect(expandTargets(['192.168.1.0-255'])).toHaveLength(256);
  });
});
