import {
  CONDITION_NAMES,
  type ConditionName,
  ConditionsConfig,
  type ConditionsStatus,
  type SourceConfig,
  type SourceName,
  SOURCE_NAMES,
  SOURCE_UNITS,
} from '@outpost/contracts/conditions';
import type { Trigger } from '@outpost/contracts';
import { TimerSlot } from '../clock.js';
import {
  ConditionEvaluator,
  type Reading,
  type SourceStatus,
  type Step,
  sourceState,
} from '../conditions/evaluator.js';
import { quietHoursAt } from '../conditions/quiet-hours.js';
import { sourceTopic } from '../conditions/source-topics.js';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { systemEvent } from '../events.js';
import type { EventDraft } from '../types.js';
import { CONDITIONS } from './actors.js';

const NAMES: ReadonlySet<string> = new Set(CONDITION_NAMES);
export const isConditionTrigger = (t: Trigger | 'idle'): t is ConditionName => NAMES.has(t);

export const EMPTY_CONDITIONS: ConditionsConfig = ConditionsConfig.parse({});

/**
 * Start conditions as an automatic start, on the same path as the input signal: a condition that
 * becomes active asks for a run through the same gates (EPO, HOA, Quiet, arming, lockout, cooldown,
 * force_stop), names itself as the trigger, and stops only the runs it started, once every condition
 * holding the run has released and the minimum run time has passed. A manual stop while a condition
 * still holds waits, like the input signal, until the conditions release before starting again.
 */
export class StartConditions implements ControllerModule {
  private config: ConditionsConfig = EMPTY_CONDITIONS;
  private readonly evaluator = new ConditionEvaluator();
  private readonly readings: Partial<Record<SourceName, Reading>> = {};
  private listeningSince: number;
  private latched = false;
  private lastRefusal: string | null = null;
  private lastReleased: { name: ConditionName; value: number | null } | null = null;
  private last: Step | null = null;
  private quiet = false;
  private readonly statuses = new Map<SourceName, SourceStatus>();
  private readonly timer: TimerSlot;
  private signature = '';
  /** Bumped whenever what status() shows changes beyond the clock (the state view's cache key). */
  version = 0;

  constructor(
    private readonly core: ModuleHost,
    private readonly timezone: string,
  ) {
    this.listeningSince = core.now;
    this.timer = new TimerSlot(core.clock, () => {
      void core.serial
        .run(() => this.tick())
        .catch((err) => core.deps.logger.error({ err }, 'conditions tick failed'));
    });
  }

  start(): void {
    // A stop names the condition released last during this run, never one of an earlier run.
    this.core.events.on('runStarted', () => {
      this.lastReleased = null;
    });
    this.core.events.on('runStopped', (reason, actor, outcome) => {
      if (
        outcome.was_running &&
        reason === 'manual' &&
        actor.who !== 'hoa' &&
        this.evaluator.activeNames().length > 0
      )
        this.latched = true;
    });
  }

  stop(): void {
    this.timer.cancel();
  }

  get configuration(): ConditionsConfig {
    return this.config;
  }

  /** Any source or condition configured (the state then carries the conditions). */
  get inUse(): boolean {
    return Object.keys(this.config.sources).length > 0 || Object.keys(this.config.conditions).length > 0;
  }

  /** A new configuration: conditions whose source changed or that were disabled start over. */
  configure(next: ConditionsConfig): Promise<void> {
    return this.core.serial.run(async () => {
      const prev = this.config;
      this.config = next;
      for (const name of SOURCE_NAMES) {
        if (JSON.stringify(prev.sources[name]) !== JSON.stringify(next.sources[name])) {
          delete this.readings[name];
          this.statuses.delete(name);
          if (name !== 'grid') this.evaluator.reset(name);
        }
      }
      this.listeningSince = this.core.now;
      this.latched = false;
      this.version++;
      await this.tick();
      this.core.deps.bus.stateChanged();
    });
  }

  /** A reading from a source (MQTT, REST, the dev mode's fake); null: the source says it has no value. */
  reading(name: SourceName, value: number | null): Promise<void> {
    if (!this.config.sources[name]) return Promise.resolve();
    this.readings[name] = { value, at: this.core.now };
    return this.core.serial.run(() => this.tick());
  }

  /**
   * The sources' device showed life without a new value (a Victron GX publishes only changes, and its
   * heartbeat says it is up and kept alive): their readings hold on as of now. A source already stale
   * is not revived by life alone; only a value brings it back (the GX is asked for all of them).
   */
  alive(names: SourceName[]): void {
    const now = this.core.now;
    for (const name of names) {
      const src = this.config.sources[name];
      const r = this.readings[name];
      if (!src || !r || now >= r.at + src.stale_after_seconds * 1000) continue;
      // No evaluation needed: the wake-up armed for the old stale time re-arms from this one.
      this.readings[name] = { value: r.value, at: now };
    }
  }

  /**
   * The conditions evaluated now, then the state machine's tick. Evaluated here too, not only in
   * decide(): a decider before this one (the selector at Run) may end the tick, and the live
   * status, countdowns and stale warnings must follow all the same.
   */
  private async tick(): Promise<void> {
    this.refresh();
    await this.core.evaluate();
  }

  /** A source's value while it is fresh and valid, with when it goes stale; null otherwise. */
  fresh(name: SourceName): { value: number; staleAt: number } | null {
    const s = sourceState(this.config, name, this.readings[name], this.listeningSince, this.core.now);
    return s.status === 'ok' && s.value !== null && s.staleAt !== null
      ? { value: s.value, staleAt: s.staleAt }
      : null;
  }

  /** Live values, condition states and countdowns (GET /api/conditions, the retained state). */
  status(): ConditionsStatus {
    const core = this.core;
    const now = core.now;
    const step = this.last ?? this.refresh();
    const started = core.state.generator_start_time;
    const holding = core.state.generator_running && isConditionTrigger(core.state.run_trigger);
    const minEnd = started === null ? null : started + this.config.minimum_run_minutes * 60_000;
    return {
      quiet_hours_active: this.quiet,
      grid_present: step.grid,
      holding_run: holding,
      minimum_run_remaining_seconds:
        holding && minEnd !== null && minEnd > now ? Math.ceil((minEnd - now) / 1000) : null,
      sources: SOURCE_NAMES.filter((n) => this.config.sources[n]).map((name) => {
        const src = this.config.sources[name] as SourceConfig;
        const s = sourceState(this.config, name, this.readings[name], this.listeningSince, now);
        const at = this.readings[name]?.at ?? null;
        return {
          name,
          type: src.type,
          topic: sourceTopic(name, src),
          value: s.value,
          unit: SOURCE_UNITS[name],
          status: s.status,
          updated_at: at === null ? null : Math.floor(at / 1000),
        };
      }),
      conditions: step.conditions.map((c) => {
        const remaining =
          c.remaining_ms === null ? null : Math.max(0, c.remaining_ms - (now - (this.lastAt ?? now)));
        return {
          name: c.name,
          enabled: c.enabled,
          state: c.state,
          value: c.value,
          start_value: c.start_value,
          stop_value: c.stop_value,
          countdown_seconds: remaining === null ? null : Math.ceil(remaining / 1000),
          due_at: remaining === null ? null : Math.floor((now + remaining) / 1000),
        };
      }),
    };
  }

  private lastAt: number | null = null;

  /** One evaluation of the conditions now; raises source warnings and re-arms the wake-up timer. */
  private refresh(): Step {
    const core = this.core;
    const now = core.now;
    const q = quietHoursAt(this.config.quiet_hours, this.timezone, now);
    this.quiet = q.quiet;
    const step = this.evaluator.step({
      now,
      config: this.config,
      readings: this.readings,
      listeningSince: this.listeningSince,
      quiet: q.quiet,
    });
    this.last = step;
    this.lastAt = now;
    if (step.released.length > 0) this.lastReleased = step.released[step.released.length - 1] ?? null;
    const events = this.sourceEvents(now);
    if (events.length > 0) void core.persist({ label: 'conditions:source', events: () => events });
    const started = core.state.generator_start_time;
    const minEnd =
      core.state.generator_running && started !== null
        ? started + this.config.minimum_run_minutes * 60_000
        : null;
    const wakes = [step.nextAt, q.changesAt, minEnd !== null && minEnd > now ? minEnd : null].filter(
      (t): t is number => t !== null,
    );
    if (wakes.length > 0) this.timer.at(Math.min(...wakes));
    else this.timer.cancel();
    const signature = JSON.stringify([
      step.conditions.map((c) => [c.state, c.value]),
      step.grid,
      q.quiet,
      [...this.statuses],
    ]);
    if (signature !== this.signature) {
      this.signature = signature;
      this.version++;
      core.deps.bus.stateChanged();
    }
    return step;
  }

  /** condition_source_stale when a source falls silent past its stale_after; _restored when it is back. */
  private sourceEvents(now: number): EventDraft[] {
    const events: EventDraft[] = [];
    for (const name of SOURCE_NAMES) {
      if (!this.config.sources[name]) continue;
      const s = sourceState(this.config, name, this.readings[name], this.listeningSince, now).status;
      const before = this.statuses.get(name) ?? 'missing';
      this.statuses.set(name, s);
      if (s === before) continue;
      const data = { source: name, stale_after_seconds: this.config.sources[name]?.stale_after_seconds };
      if (s === 'stale') {
        const details = `Start condition source ${name} silent for over ${data.stale_after_seconds} s: it cannot start the generator`;
        this.core.deps.logger.warn({ source: name }, 'start condition source is stale: it counts as unknown');
        events.push(systemEvent('condition_source_stale', now, 'stale', details, data));
        events.push(systemEvent('generator.condition.source_stale', now, 'stale', details, data));
      } else if (before === 'stale' && s === 'ok') {
        const details = `Start condition source ${name} reporting again`;
        events.push(systemEvent('condition_source_restored', now, 'ok', details, data));
        events.push(systemEvent('generator.condition.source_restored', now, 'ok', details, data));
      }
    }
    return events;
  }

  /** After the selector and before the input signal: start on an active condition, stop when all released. */
  async decide(): Promise<boolean> {
    const core = this.core;
    const s = core.state;
    const step = this.refresh();
    const keepOff = this.config.keep_off_while_grid && step.grid === true;
    if (s.generator_running) {
      if (!isConditionTrigger(s.run_trigger) || s.override_type === 'force_run' || core.hoaHold) return false;
      if (keepOff) {
        await core.doStop('grid_present', CONDITIONS, 'grid present: keep_off_while_grid', 1);
        return true;
      }
      if (this.evaluator.activeNames().length > 0) return false;
      const started = s.generator_start_time ?? core.now;
      if (core.now < started + this.config.minimum_run_minutes * 60_000) return false;
      const by = this.lastReleased ?? { name: s.run_trigger, value: null };
      await core.doStop(by.name, CONDITIONS, `${by.name} reached its stop value`, by.value);
      return true;
    }
    if (this.latched) {
      if (this.evaluator.activeNames().length > 0) return false;
      this.latched = false;
    }
    const wanted = step.wanted;
    if (!wanted || keepOff) {
      this.lastRefusal = null;
      return false;
    }
    const refusal = core.checkStart(wanted.name);
    if (refusal) {
      if (refusal.code !== this.lastRefusal) {
        core.deps.logger.info(
          { code: refusal.code, condition: wanted.name },
          `condition start refused: ${refusal.message}`,
        );
        await core.persist({
          label: 'conditions:refused',
          audit: [
            {
              action: 'generator.start_refused',
              actor: CONDITIONS,
              details: { ...refusal, condition: wanted.name },
            },
          ],
        });
      }
      this.lastRefusal = refusal.code;
      return false;
    }
    this.lastRefusal = null;
    try {
      await core.doStart({
        trigger: wanted.name,
        actor: CONDITIONS,
        trigger_value: wanted.value,
        notes: `${wanted.name} ${wanted.value ?? 'unknown'} reached its start value`,
      });
    } catch (err) {
      core.deps.logger.warn({ err, condition: wanted.name }, 'condition start failed');
    }
    return true;
  }
}
