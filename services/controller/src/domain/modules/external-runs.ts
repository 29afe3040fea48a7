import type { ModuleHost } from '../controller-module.js';
import { startedEvents, stoppedEvents } from '../events.js';
import type { Actor, EventDraft, RunRef } from '../types.js';

export const FEEDBACK: Actor = { who: 'running_feedback', from: 'generator' };

/**
 * Runs the generator made on its own (started at its panel): recorded with trigger `external` from
 * the running feedback, never commanded. They live beside the core's own run: generator_running stays
 * false, so the heartbeat never asks the relay for anything because of them.
 */
export class ExternalRuns {
  private open: { ref: RunRef; start: number } | null = null;

  constructor(private readonly core: ModuleHost) {}

  get active(): boolean {
    return this.open !== null;
  }

  /** Records the start; inside a serial section. */
  async begin(notes = 'started outside Outpost (running feedback)'): Promise<void> {
    const core = this.core;
    if (this.open) return;
    const now = core.now;
    const ref: RunRef = { id: null };
    this.open = { ref, start: now };
    core.meters.externalStarted({ start: now, gph: 0 });
    const fuel = core.settings.fuel;
    const info = {
      trigger: 'external' as const,
      start_time: now,
      notes,
      fuel_type: fuel.fuel_type,
      scheduled_stop_at: null,
      scheduled_run_id: null,
    };
    // The id is taken first so the run record, like a commanded one, needs no answer before its write.
    void core.writes
      .enqueue(
        {
          label: 'external:reserve',
          reserveRunId: ref,
          audit: [{ action: 'generator.external_run', actor: FEEDBACK, details: { start_time: now } }],
        },
        true,
      )
      .catch(() => undefined);
    await core.persist({
      label: 'external:run',
      createRun: {
        ref,
        start_time: now,
        trigger_type: 'external',
        notes: info.notes,
        fuel_type_at_run: fuel.fuel_type,
        load_at_run: fuel.expected_load,
        gph_at_run: 0,
        scheduled_run_id: null,
      },
      // generator.started.external for webhooks; people hear of it as external_run, not as a start.
      events: (runId) => {
        const webhook = startedEvents(runId, info)[0] as EventDraft;
        return [webhook, { event: 'external_run', data: webhook.data }];
      },
    });
  }

  /** Closes the open external run, if any; inside a serial section. */
  async end(note: string): Promise<void> {
    const core = this.core;
    const open = this.open;
    if (!open) return;
    this.open = null;
    const now = core.now;
    const duration = Math.max(0, Math.floor((now - open.start) / 1000));
    core.meters.runEnded(now, duration, 0, true);
    await core.persist({
      label: 'external:close',
      closeRuns: [
        {
          ref: open.ref,
          stop_time: now,
          duration_seconds: duration,
          // The panel's stop is an operator's stop; the note says where it happened.
          stop_reason: 'manual',
          estimated_fuel_used: 0,
          stop_note: note,
        },
      ],
      events: () =>
        stoppedEvents(open.ref.id, {
          trigger: 'external',
          reason: 'manual',
          start_time: open.start,
          stop_time: now,
          duration_seconds: duration,
          fuel_gallons: 0,
          fuel_type: core.settings.fuel.fuel_type,
          note,
        }),
      audit: [{ action: 'generator.external_run_end', actor: FEEDBACK, details: { note, duration } }],
    });
    core.afterChange(true);
  }
}
