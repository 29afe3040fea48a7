import {
  GENERATOR_TEMPLATE_VARIABLES,
  type NotificationEvent,
  SYSTEM_TEMPLATE_VARIABLES,
} from '@outpost/contracts';

export const TEMPLATE_VARIABLES: readonly string[] = [
  ...GENERATOR_TEMPLATE_VARIABLES,
  ...SYSTEM_TEMPLATE_VARIABLES,
];

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** Names used in a template that are not template variables of the spec. */
export function unknownVariables(template: string): string[] {
  const bad = new Set<string>();
  for (const m of template.matchAll(PLACEHOLDER)) if (!TEMPLATE_VARIABLES.includes(m[1]!)) bad.add(m[1]!);
  return [...bad];
}

export function render(template: string, vars: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => vars[name] ?? whole);
}

const MISSING = 'n/a';

const two = (n: number) => String(n).padStart(2, '0');

/** Unix seconds (or ms) as `YYYY-MM-DD HH:MM:SS UTC`. */
export function formatTime(value: unknown): string {
  if (typeof value === 'string' && value) return value;
  if (typeof value !== 'number' || !Number.isFinite(value)) return MISSING;
  const ms = value > 1e11 ? value : value * 1000;
  const d = new Date(ms);
  return (
    `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC`
  );
}

/** Seconds as `1h 05m 03s`, `5m 03s` or `42s`. */
export function formatDuration(value: unknown): string {
  if (typeof value === 'string' && value) return value;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return MISSING;
  const s = Math.round(value);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${two(m)}m ${two(sec)}s`;
  if (m > 0) return `${m}m ${two(sec)}s`;
  return `${sec}s`;
}

function text(value: unknown): string {
  if (value === null || value === undefined || value === '') return MISSING;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function gallons(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(2) : text(value);
}

/** Every template variable of the spec, from an event's data (timestamp falls back to the event's own). */
export function eventVariables(
  data: Record<string, unknown>,
  eventTimestamp: number,
): Record<string, string> {
  return {
    run_id: text(data.run_id),
    start_time: formatTime(data.start_time),
    stop_time: formatTime(data.stop_time),
    runtime: formatDuration(data.runtime ?? data.duration_seconds),
    reason: text(data.reason),
    fuel_gallons: gallons(data.fuel_gallons),
    fuel_type: text(data.fuel_type),
    timestamp: formatTime(data.timestamp ?? eventTimestamp),
    status: text(data.status),
    details: text(data.details),
  };
}

const system = (title: string) => ({
  title,
  body: `${title}: {{details}} (status: {{status}}, at {{timestamp}})`,
});

/** What each event says until someone configures it. */
export const DEFAULT_TEMPLATES: Record<NotificationEvent, { title: string; body: string }> = {
  generator_started: {
    title: 'Generator started',
    body: 'Generator started at {{start_time}} (run {{run_id}}, fuel: {{fuel_type}}).',
  },
  generator_stopped: {
    title: 'Generator stopped',
    body:
      'Generator stopped at {{stop_time}} after {{runtime}} (reason: {{reason}}, run {{run_id}}). ' +
      'Fuel used: {{fuel_gallons}} gal of {{fuel_type}}.',
  },
  exercise_started: {
    title: 'Exercise run started',
    body: 'Exercise run {{run_id}} started at {{start_time}}.',
  },
  exercise_completed: {
    title: 'Exercise run completed',
    body: 'Exercise run {{run_id}} completed at {{stop_time}} after {{runtime}}; fuel used: {{fuel_gallons}} gal.',
  },
  slave_connected: system('Relay node connected'),
  slave_disconnected: system('Relay node disconnected'),
  override_enabled: system('Override enabled'),
  override_disabled: system('Override disabled'),
  max_runtime_reached: system('Maximum runtime reached'),
  lockout_activated: system('Generator locked out'),
  lockout_cleared: system('Lockout cleared'),
  boot_disarmed_failsafe: system('Disarmed at boot by the fail-safe policy'),
  hardware_safety_engaged_relaynode: system('Emergency stop engaged at the relay node'),
  hardware_safety_released_relaynode: system('Emergency stop released at the relay node'),
  hoa_position_changed: system('HOA selector moved'),
  fail_to_start: system('Generator failed to start'),
  unexpected_stop: {
    title: 'Generator stopped unexpectedly',
    body: 'The generator stopped on its own at {{timestamp}} during run {{run_id}}: {{details}}.',
  },
  external_run: {
    title: 'Generator running without a command',
    body: 'The generator started outside Outpost (its own panel) at {{start_time}}; recorded as run {{run_id}}.',
  },
  exercise_failed: system('Exercise run failed'),
  maintenance_upcoming: system('Generator service coming up'),
  maintenance_due: system('Generator service due'),
  disarmed_reminder: system('Automation still disarmed'),
  override_reminder: system('Override still active'),
  relay_not_confirmed: system('Generator relay not confirmed by the relay node'),
  relay_node_report_unverified: system('Relay node report failed verification and was ignored'),
  lease_not_published: system('Generator controller could not publish its relay lease'),
  condition_source_stale: system('Start condition source silent'),
  condition_source_restored: system('Start condition source reporting again'),
  genset_not_in_auto: system("Generator's controller not in Auto"),
  genset_in_auto: system("Generator's controller back in Auto"),
  genset_warning: system("Generator's controller warning alarm"),
  genset_shutdown: system("Generator's controller shutdown alarm"),
  genset_electrical_trip: system("Generator's controller electrical trip alarm"),
};
