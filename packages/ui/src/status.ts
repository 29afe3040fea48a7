/**
 * Colours by meaning, written once for every console. An operator reads colour before text, so:
 * - neutral: normal and idle (stopped, disarmed on purpose, relay off, nothing wrong);
 * - good (green): running, and a link or process that is up and reporting;
 * - warn (amber): needs a look but is not a fault (stale values, clock offset, selector not in
 *   auto, a feed lost, a lockout or cooldown);
 * - bad (red): faults only (failsafe, EPO, offline, alarms, a failed check).
 */
export type Tone = 'neutral' | 'good' | 'warn' | 'bad';

export const STATUS_TONES = {
  // Normal idle.
  stopped: 'neutral',
  idle: 'neutral',
  disarmed: 'neutral',
  armed: 'neutral',
  relay_off: 'neutral',
  clear: 'neutral',
  ok: 'neutral',
  unknown: 'neutral',
  auto: 'neutral',
  // Running, or up and reporting.
  running: 'good',
  relay_on: 'good',
  online: 'good',
  connected: 'good',
  passed: 'good',
  // Warnings.
  stale: 'warn',
  clock_offset: 'warn',
  not_auto: 'warn',
  no_input: 'warn',
  feed_lost: 'warn',
  unreachable: 'warn',
  lockout: 'warn',
  cooldown: 'warn',
  due_soon: 'warn',
  unprotected: 'warn',
  missing: 'warn',
  // Faults.
  failsafe: 'bad',
  epo: 'bad',
  offline: 'bad',
  alarm: 'bad',
  failed: 'bad',
  error: 'bad',
} as const satisfies Record<string, Tone>;

export type StatusMeaning = keyof typeof STATUS_TONES;

export function toneOf(meaning: StatusMeaning): Tone {
  return STATUS_TONES[meaning];
}

/** The CSS class of a tone (styles.css): `neutral`, `good`, `warn` or `bad`. */
export function toneClass(meaning: StatusMeaning): Tone {
  return toneOf(meaning);
}

/** The fleet's simulator status words (contracts' FleetSimulatorStatus) by meaning. */
export const SIMULATOR_STATUS_MEANING: Record<string, StatusMeaning> = {
  online: 'online',
  'online, idle': 'idle',
  stopped: 'stopped',
  'no input': 'no_input',
  'feed lost': 'feed_lost',
  offline: 'offline',
};

/**
 * Whether a simulator status word counts as online: the one rule for a fleet header's count and the
 * rows it counts (a process that is up, reporting or idle, is online; a stopped emulator or a lost
 * feed is up but not online).
 */
export function simulatorCountsOnline(status: string): boolean {
  return status === 'online' || status === 'online, idle';
}
