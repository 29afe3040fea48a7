import type { ControllerModule, ModuleHost } from '../controller-module.js';
import type { StartOutcome } from '../controller-types.js';
import { alarmEvents } from '../health-events.js';
import type { EventDraft, ExerciseReportRow } from '../types.js';
import type { RunningFeedback } from './running-feedback.js';

/**
 * Each exercise run's report: whether the running feedback confirmed the start and how fast, and
 * whether it ran its full duration. With a feedback source, one that did not pass raises the
 * exercise_failed alarm, written in the same commit as its report.
 */
export class ExerciseReports implements ControllerModule {
  private current: StartOutcome | null = null;

  constructor(
    private readonly core: ModuleHost,
    private readonly feedback: RunningFeedback,
  ) {}

  start(): void {
    const events = this.core.events;
    events.on('runStarted', (outcome) => {
      this.current = outcome.trigger === 'exercise' ? outcome : null;
    });
    events.on('runStopped', (reason, _actor, outcome) => {
      const started = this.current;
      this.current = null;
      if (!started || !outcome.was_running) return;
      const confirmedAt = this.feedback.source === 'none' ? null : this.feedback.lastConfirmedAt;
      const report: ExerciseReportRow = {
        run_id: outcome.run_id,
        started_at: started.start_time,
        confirmed: this.feedback.source === 'none' ? null : confirmedAt !== null,
        confirm_seconds:
          confirmedAt === null ? null : Math.max(0, Math.round((confirmedAt - started.start_time) / 1000)),
        planned_seconds:
          started.scheduled_stop_at === null
            ? null
            : Math.round((started.scheduled_stop_at - started.start_time) / 1000),
        ran_seconds: outcome.duration_seconds ?? 0,
        full_duration: reason === 'exercise_end',
        stop_reason: reason,
        passed: reason === 'exercise_end' && confirmedAt !== null,
      };
      if (this.feedback.source === 'none') report.passed = report.full_duration;
      void this.core.serial
        .run(() => this.record(report))
        .catch((err) => this.core.deps.logger.error({ err }, 'exercise report not recorded'));
    });
  }

  private async record(report: ExerciseReportRow): Promise<void> {
    const core = this.core;
    const now = core.now;
    const events: EventDraft[] = [];
    let state = core.state;
    // Without a feedback source the controller behaves as it always did: the report, no alarm.
    if (!report.passed && report.confirmed !== null) {
      const why = !report.full_duration
        ? `exercise run ended early (${report.stop_reason}) after ${report.ran_seconds} s`
        : 'exercise run was not confirmed by the running feedback';
      events.push(...alarmEvents('exercise_failed', now, why, { run_id: report.run_id }));
      state = { ...state, health_alarm: 'exercise_failed' };
      core.deps.logger.warn({ alarm: 'exercise_failed', run_id: report.run_id }, why);
    }
    core.state = state;
    await core.persist({
      label: 'exercise:report',
      exerciseReport: report,
      ...(events.length > 0 ? { state } : {}),
      events: () => events,
    });
    core.afterChange(events.length > 0);
  }
}
