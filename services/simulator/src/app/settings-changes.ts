import type { simulator } from '@outpost/contracts';
import { ServiceError } from './service-error.js';
import { activeMode, applyModeFlags, type Settings } from './settings.js';

/** One settings change: what it is called in a refusal, how it edits a copy, what it reports. */
export interface SettingsChange {
  what: string;
  mutate(next: Settings): void;
  report(next: Settings): Record<string, unknown>;
}

export function modesChange(update: simulator.ModeFlags): SettingsChange {
  return {
    what: 'the operating mode',
    mutate(next) {
      const modes = applyModeFlags(next.modes, update);
      if (typeof modes === 'string') throw new ServiceError(422, modes, { messages: [modes] });
      next.modes = modes;
    },
    report: (next) => ({ mode: activeMode(next.modes), modes: { ...next.modes } }),
  };
}

export function networkChange(update: simulator.NetworkConfig): SettingsChange {
  return {
    what: 'the network settings',
    mutate(next) {
      for (const [k, v] of Object.entries(update)) {
        if (v !== undefined)
          (next.network as unknown as Record<string, unknown>)[k] = Array.isArray(v) ? [...v] : v;
      }
    },
    report: (next) => ({ network: { ...next.network, efb_target_ips: [...next.network.efb_target_ips] } }),
  };
}

export function nmeaChange(update: simulator.NmeaSelection): SettingsChange {
  return {
    what: 'the NMEA sentences',
    mutate(next) {
      for (const [k, v] of Object.entries(update)) {
        if (typeof v === 'boolean') (next.nmea as Record<string, boolean>)[k] = v;
      }
    },
    report: (next) => ({ nmea: { ...next.nmea } }),
  };
}

export function serialChange(update: { device?: string | null; baudrate?: number }): SettingsChange {
  return {
    what: 'the serial settings',
    mutate(next) {
      if (update.device !== undefined) next.serial.device = update.device;
      if (update.baudrate !== undefined) next.serial.baudrate = update.baudrate;
    },
    report: (next) => ({ serial: { ...next.serial } }),
  };
}
