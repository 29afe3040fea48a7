import type { simulator } from '@outpost/contracts';
import type { Logger } from '@outpost/runtime';
import { targetProblems } from '../domain/target-policy.js';
import { StartError } from '../io/start-error.js';
import { planRun, type RunOutputs } from './run-outputs.js';
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

export function networkChange(update: simulator.NetworkConfig, allowBroadcast = false): SettingsChange {
  return {
    what: 'the network settings',
    mutate(next) {
      for (const [k, v] of Object.entries(update)) {
        if (v !== undefined)
          (next.network as unknown as Record<string, unknown>)[k] = Array.isArray(v) ? [...v] : v;
      }
      // The settings as they would be: a refusal leaves the previous ones in effect.
      const problems = targetProblems(next.network, allowBroadcast);
      if (problems.length > 0) throw new ServiceError(422, problems.join('; '), { messages: problems });
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

/**
 * Moves a running run to the prepared settings, reopening only the outputs whose socket or device
 * changes. Refuses (409) when the emulator could not run with them or an output fails to reopen;
 * the run is then as it was. Answers the outputs' new state.
 */
export async function applyToRun(
  run: RunOutputs,
  next: Settings,
  messages: string[],
  log: Logger,
): Promise<Record<string, unknown>> {
  const plan = planRun(next);
  if (messages.length > 0 || !plan) {
    throw new ServiceError(
      409,
      `The emulator is running and could not run with this change: ${messages.join('; ')}. ` +
        'Send the missing values with the change, or stop the emulator first',
      { messages },
    );
  }
  const reopened = run.changes(plan, next);
  try {
    await run.apply(plan, next);
  } catch (err) {
    const banner = err instanceof StartError ? err.banner : `Cannot apply: ${(err as Error).message}`;
    throw new ServiceError(409, `${banner}; the previous settings stay in effect`, { banner });
  }
  if (reopened.length > 0) log.info({ reopened, mode: plan.mode }, 'outputs reopened for a settings change');
  return { plan, ...run.describe() };
}
