import type { genset, health } from '@outpost/contracts';
import type { ControllerModule, ModuleHost } from '../controller-module.js';
import { REFUSAL_MESSAGES } from '../errors.js';
import { noticeEvents } from '../health-events.js';
import type { Refusal } from '../gates.js';
import { alarmKeys, newAlarmEvents, stopsEngine } from './genset-alarms.js';
import { staleOf } from './genset-stale.js';
import type { RunningFeedback } from './running-feedback.js';

const GENSET = { who: 'system', from: 'genset' };
/** Auto with manual restore still starts on a remote signal: only the return to mains is manual. */
const STARTS_REMOTELY: ReadonlySet<genset.GensetMode> = new Set(['auto', 'auto_manual_restore']);
const MODE_WORDS: Record<genset.GensetMode, string> = {
  stop: 'Stop',
  auto: 'Auto',
  manual: 'Manual',
  test_on_load: 'Test on load',
  auto_manual_restore: 'Auto with manual restore',
  user_configuration: 'User configuration',
  test_off_load: 'Test off load',
  off: 'Off',
};

/**
 * The generator's own controller as the relay node reads it over Modbus (`relaynode/<id>/genset`).
 * Keeps the newest report for the state and GET /api/genset; warns when its mode selector is not in
 * Auto; refuses starts while it is in Stop or holds a shutdown alarm; announces its alarms and ends a
 * run it shut down (stop reason `genset_shutdown`, no retry while the alarm stands); and hands its
 * running flag to the running feedback. A stale report makes everything unknown: silence from the
 * module is never taken as "stopped", nor as "back in Auto".
 */
export class GensetFollower implements ControllerModule {
  private latest: genset.GensetState | null = null;
  /** The mode warning was announced and not cleared by a report in Auto since. */
  private notInAuto = false;
  private alarmsBefore: ReadonlySet<string> = new Set();
  /** A shutdown ended a run (or stood at a start): no start until a report shows it reset. */
  private shutdownStands = false;
  private nodeOffline = false;

  constructor(
    private readonly core: ModuleHost,
    private readonly feedback: RunningFeedback,
    /** Takes the module's engine run time as the engine-hour meter (HourMeter.adoptModule). */
    private readonly runTime: (seconds: number) => void = () => {},
  ) {}

  start(): void {
    this.core.addStartGuard(() => this.refusal());
  }

  /** The newest report; null before the relay node published one. */
  get state(): genset.GensetState | null {
    return this.latest;
  }

  /** The mode when known (not stale). */
  get mode(): genset.GensetMode | null {
    return this.latest && !this.latest.stale ? this.latest.mode : null;
  }

  /** For GET /api/health. */
  health(): { genset_mode: genset.GensetMode | null; genset_warnings: health.GensetHealthWarning[] } {
    const warnings: health.GensetHealthWarning[] = [];
    const mode = this.mode;
    if (mode !== null && !STARTS_REMOTELY.has(mode)) warnings.push('genset_not_in_auto');
    if (this.latest?.warnings.includes('genset_unreachable')) warnings.push('genset_unreachable');
    return { genset_mode: mode, genset_warnings: warnings };
  }

  /** What a commanded start's answer adds: a module in Manual runs only while someone holds it there. */
  startWarning(): string | null {
    const mode = this.mode;
    if (mode === null || STARTS_REMOTELY.has(mode) || mode === 'stop') return null;
    return `the generator's own controller is in ${MODE_WORDS[mode]} mode, not Auto: it may ignore the start relay or not stop when it opens`;
  }

  async reported(report: genset.GensetState): Promise<void> {
    const core = this.core;
    let state = report;
    await core.serial.run(async () => {
      if (this.nodeOffline && !report.stale) state = staleOf(report);
      this.latest = state;
      if (!state.stale) {
        const seconds = state.accumulated.engine_run_time_s;
        if (seconds !== null) this.runTime(seconds);
        await this.followMode(state.mode);
        await this.followAlarms(state.alarms.active);
      }
      core.afterChange(false);
    });
    const running = state.stale ? null : state.running;
    await (running === null ? this.feedback.unknown('genset') : this.feedback.report('genset', running));
  }

  /**
   * The relay node's availability. Offline, its retained report is the last it could say, not what the
   * module says now: everything becomes unknown, as if the module were silent, until it is back online
   * and reports again (a retained report arriving while it is offline is taken as stale too).
   */
  async nodeAvailability(online: boolean): Promise<void> {
    const core = this.core;
    const gone = await core.serial.run(async () => {
      this.nodeOffline = !online;
      if (online || !this.latest || this.latest.stale) return false;
      core.deps.logger.warn({}, "relay node offline: the generator's controller is unknown until it is back");
      this.latest = staleOf(this.latest);
      core.afterChange(false);
      return true;
    });
    if (gone) await this.feedback.unknown('genset');
  }

  private refusal(): Refusal | null {
    if (this.shutdownStands) return { code: 'genset_shutdown', message: REFUSAL_MESSAGES.genset_shutdown };
    if (this.mode === 'stop') return { code: 'genset_stop', message: REFUSAL_MESSAGES.genset_stop };
    return null;
  }

  private async followMode(mode: genset.GensetMode | null): Promise<void> {
    if (mode === null) return;
    const wrong = !STARTS_REMOTELY.has(mode);
    if (wrong === this.notInAuto) return;
    this.notInAuto = wrong;
    const core = this.core;
    const words = MODE_WORDS[mode];
    const details = wrong
      ? `the generator's own controller is in ${words} mode: a remote start closes the relay and the engine does not start`
      : `the generator's own controller is back in ${words} mode`;
    if (wrong) core.deps.logger.warn({ mode }, details);
    else core.deps.logger.info({ mode }, details);
    const [name, hook] = wrong
      ? ['genset_not_in_auto', 'generator.alarm.genset_not_in_auto']
      : ['genset_in_auto', 'generator.genset.in_auto'];
    const status = wrong ? 'warning' : 'ok';
    await core.persist({
      label: `genset:${name}`,
      events: () => noticeEvents(name, hook, core.now, status, details, { mode }),
      audit: [{ action: `genset.${name}`, actor: GENSET, details: { mode } }],
    });
    core.afterChange(true);
  }

  private async followAlarms(active: genset.GensetAlarm[]): Promise<void> {
    const core = this.core;
    const before = this.alarmsBefore;
    this.alarmsBefore = alarmKeys(active);
    const shutdown = stopsEngine(active);
    if (shutdown.length === 0) this.shutdownStands = false;
    const runId = core.state.current_run_id;
    const events = newAlarmEvents(active, before, core.now, core.state.generator_running ? runId : null);
    if (events.length > 0) {
      await core.persist({
        label: 'genset:alarms',
        events: () => events,
        audit: [{ action: 'genset.alarms', actor: GENSET, details: { active } }],
      });
      core.afterChange(true);
    }
    if (shutdown.length === 0) return;
    this.shutdownStands = true;
    if (!core.state.generator_running) return;
    const names = shutdown.map((a) => a.name ?? `alarm ${a.index}`).join(', ');
    await core.doStop('genset_shutdown', GENSET, `the generator's controller shut the engine down: ${names}`);
    await core.evaluate();
  }
}
