import {
  type ConditionName,
  CONDITION_DIRECTION,
  CONDITION_NAMES,
  type ConditionsConfig,
  type SourceName,
} from '@outpost/contracts/conditions';

/** The latest reading of a source: value null is a reading that says "invalid" (Venus OS `{"value": null}`). */
export interface Reading {
  value: number | null;
  at: number;
}

export type SourceStatus = 'ok' | 'stale' | 'missing';

/** What a source says now: a value only while it is fresh. */
export function sourceState(
  cfg: ConditionsConfig,
  name: SourceName,
  reading: Reading | undefined,
  listeningSince: number,
  now: number,
): { status: SourceStatus; value: number | null; staleAt: number | null } {
  const src = cfg.sources[name];
  if (!src) return { status: 'missing', value: null, staleAt: null };
  const limit = src.stale_after_seconds * 1000;
  // Silence counts from the last reading, or from when listening began if there is none yet.
  const last = reading ? reading.at : listeningSince;
  const staleAt = last + limit;
  if (now >= staleAt) return { status: 'stale', value: null, staleAt: null };
  if (!reading) return { status: 'missing', value: null, staleAt };
  return { status: 'ok', value: reading.value, staleAt };
}

export type ConditionPhase = 'off' | 'idle' | 'start_pending' | 'active' | 'stop_pending' | 'unknown';

export interface ConditionView {
  name: ConditionName;
  enabled: boolean;
  state: ConditionPhase;
  value: number | null;
  start_value: number;
  stop_value: number;
  /** ms until a pending start or stop completes. */
  remaining_ms: number | null;
}

export interface StepInput {
  now: number;
  config: ConditionsConfig;
  readings: Partial<Record<SourceName, Reading>>;
  /** When the sources began listening (boot or the last configuration change): silence counts from here. */
  listeningSince: number;
  quiet: boolean;
}

export interface Step {
  conditions: ConditionView[];
  /** The condition asking for a run longest (the trigger a start names), with its value, or null. */
  wanted: { name: ConditionName; value: number | null } | null;
  /** Conditions that met their stop value for the stop delay in this step. */
  released: { name: ConditionName; value: number | null }[];
  /** The grid source: true present, false absent, null unknown (stale, missing, or no source). */
  grid: boolean | null;
  /** The earliest instant a pending delay completes or a source goes stale: evaluate again then. */
  nextAt: number | null;
}

interface Held {
  active: boolean;
  /** Since when the start (inactive) or the stop (active) threshold has held. */
  pendingSince: number | null;
  activatedAt: number | null;
}

/**
 * Victron-style start/stop conditions with hysteresis and delays, on an injected time. Each condition
 * becomes active after its start value held for the start delay, and releases after its stop value
 * held for the stop delay; between the two thresholds nothing changes. An unknown value (stale,
 * missing, invalid) never activates a condition and restarts both delays; an active condition keeps
 * holding while its value is unknown, because nothing confirms its stop (the runtime limits end it).
 */
export class ConditionEvaluator {
  private readonly held = new Map<ConditionName, Held>();

  /** Forget a condition's state (it was disabled or its source changed). */
  reset(name: ConditionName): void {
    this.held.delete(name);
  }

  /** Names of the conditions holding the run (active), in activation order. */
  activeNames(): ConditionName[] {
    return [...this.held.entries()]
      .filter(([, h]) => h.active)
      .sort((a, b) => (a[1].activatedAt ?? 0) - (b[1].activatedAt ?? 0))
      .map(([n]) => n);
  }

  step(input: StepInput): Step {
    const { now, config } = input;
    const views: ConditionView[] = [];
    const released: Step['released'] = [];
    let nextAt: number | null = null;
    const wake = (t: number | null) => {
      if (t !== null && t > now && (nextAt === null || t < nextAt)) nextAt = t;
    };
    const read = (name: SourceName) => {
      const s = sourceState(config, name, input.readings[name], input.listeningSince, now);
      wake(s.staleAt);
      return s;
    };
    for (const name of CONDITION_NAMES) {
      const c = config.conditions[name];
      if (!c?.enabled || !config.sources[name]) {
        this.held.delete(name);
        if (c) views.push(offView(name, c.start_value, c.stop_value));
        continue;
      }
      const start = input.quiet ? (c.quiet_start_value ?? c.start_value) : c.start_value;
      const stop = input.quiet ? (c.quiet_stop_value ?? c.stop_value) : c.stop_value;
      const below = CONDITION_DIRECTION[name] === 'below';
      const { value } = read(name);
      const h = this.held.get(name) ?? { active: false, pendingSince: null, activatedAt: null };
      this.held.set(name, h);
      const holds =
        value === null
          ? false
          : h.active
            ? below
              ? value >= stop
              : value <= stop
            : below
              ? value <= start
              : value >= start;
      const delay = (h.active ? c.stop_delay_seconds : c.start_delay_seconds) * 1000;
      if (!holds) {
        h.pendingSince = null;
      } else {
        h.pendingSince ??= now;
        if (now - h.pendingSince >= delay) {
          h.pendingSince = null;
          if (h.active) {
            h.active = false;
            h.activatedAt = null;
            released.push({ name, value });
          } else {
            h.active = true;
            h.activatedAt = now;
          }
        }
      }
      const due = h.pendingSince === null ? null : h.pendingSince + delay;
      wake(due);
      views.push({
        name,
        enabled: true,
        state: phaseOf(h, value),
        value,
        start_value: start,
        stop_value: stop,
        remaining_ms: due === null ? null : due - now,
      });
    }
    const first = this.activeNames()[0];
    const wanted = first ? { name: first, value: views.find((v) => v.name === first)?.value ?? null } : null;
    let grid: boolean | null = null;
    if (config.sources.grid) {
      const g = read('grid');
      grid = g.value === null ? null : g.value >= 0.5;
    }
    return { conditions: views, wanted, released, grid, nextAt };
  }
}

function phaseOf(h: Held, value: number | null): ConditionPhase {
  if (h.active) return h.pendingSince === null ? 'active' : 'stop_pending';
  if (value === null) return 'unknown';
  return h.pendingSince === null ? 'idle' : 'start_pending';
}

function offView(name: ConditionName, start: number, stop: number): ConditionView {
  return {
    name,
    enabled: false,
    state: 'off',
    value: null,
    start_value: start,
    stop_value: stop,
    remaining_ms: null,
  };
}
