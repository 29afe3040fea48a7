import { OPERATING_MODES, type OperatingMode, type simulator } from '@outpost/contracts';
import { DEFAULT_NMEA_SELECTION, type NmeaSelectionFull } from '../domain/nmea/index.js';

/** Every field of the network contract is set in the settings in use; a request may send any subset. */
export type NetworkSettings = Required<simulator.NetworkConfig>;

export interface SerialSettings {
  device: string | null;
  baudrate: number;
}

export interface Settings {
  modes: simulator.AllModeFlags;
  network: NetworkSettings;
  nmea: NmeaSelectionFull;
  serial: SerialSettings;
}

export interface SettingsDefaults {
  listenPort: number;
  protocol: NetworkSettings['protocol'];
  retransmitPort: number;
  efbSimName: string;
  efbBroadcastAddress: string;
  baudrate: number;
}

export function defaultSettings(d: SettingsDefaults): Settings {
  return {
    modes: { standalone: false, sender: false, receiver: false, rebroadcaster: false, usb_output: false },
    network: {
      protocol: d.protocol,
      target_ip: '',
      port: d.listenPort,
      sender_format: 'nmea',
      listen_port: d.listenPort,
      efb_enabled: false,
      efb_sim_name: d.efbSimName,
      efb_broadcast: false,
      efb_broadcast_address: d.efbBroadcastAddress,
      efb_ip_enabled: false,
      efb_target_ips: [],
      gdl90_enabled: false,
      gdl90_traffic: 0,
      rebroadcast_usb: false,
      rebroadcast_udp: false,
      rebroadcast_udp_ip: '',
      rebroadcast_udp_port: d.retransmitPort,
    },
    nmea: { ...DEFAULT_NMEA_SELECTION },
    serial: { device: null, baudrate: d.baudrate },
  };
}

/** A deep copy, so a change can be prepared and refused without touching the settings in use. */
export function cloneSettings(s: Settings): Settings {
  return {
    modes: { ...s.modes },
    network: { ...s.network, efb_target_ips: [...s.network.efb_target_ips] },
    nmea: { ...s.nmea },
    serial: { ...s.serial },
  };
}

/** The one operating mode that is on, or null. */
export function activeMode(modes: simulator.AllModeFlags): OperatingMode | null {
  return OPERATING_MODES.find((m) => modes[m]) ?? null;
}

/**
 * The operating modes behave like radio buttons: switching one on switches the others off. Asking
 * for two at once is a client error.
 */
export function applyModeFlags(
  current: simulator.AllModeFlags,
  update: simulator.ModeFlags,
): simulator.AllModeFlags | string {
  const turnedOn = OPERATING_MODES.filter((m) => update[m] === true);
  if (turnedOn.length > 1) return `Select only one operating mode (got ${turnedOn.join(', ')})`;
  const next = { ...current };
  if (turnedOn.length === 1) for (const m of OPERATING_MODES) next[m] = m === turnedOn[0];
  for (const m of OPERATING_MODES) if (update[m] === false) next[m] = false;
  if (update.usb_output !== undefined) next.usb_output = update.usb_output;
  return next;
}
