import { Card } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { Feedback, useAction } from './feedback.js';
import type { GenState, StartResult } from './types.js';

/** Start (optional duration and notes), Stop (never disabled: a stop is always allowed), arm/disarm. */
export function Controls({ s, refresh }: { s: GenState; refresh: () => Promise<void> }) {
  const act = useAction();
  const [duration, setDuration] = useState('');
  const [notes, setNotes] = useState('');
  const [reason, setReason] = useState('');

  const post = (path: string, body: unknown, ok: string) =>
    act.run(async () => {
      try {
        await api(path, { method: 'POST', body });
      } finally {
        await refresh();
      }
    }, ok);

  const start = (e: Event) => {
    e.preventDefault();
    const body: { duration_minutes?: number; notes?: string } = {};
    if (duration.trim()) body.duration_minutes = Number(duration);
    if (notes.trim()) body.notes = notes.trim();
    // With the broker down the start is recorded but the relay is not yet confirmed: say so, in the
    // server's words (which path the ON takes), instead of a plain "started".
    const started = (r: StartResult) => (r.relay_confirmed ? 'Generator started' : r.message);
    void act
      .run(async () => {
        try {
          return await api<StartResult>('/api/generator/start', {
            method: 'POST',
            body,
          });
        } finally {
          await refresh();
        }
      }, started)
      .then((ok) => {
        if (ok) {
          setDuration('');
          setNotes('');
        }
      });
  };

  return (
    <Card title="Control">
      <Feedback note={act.note} onClose={act.clear} testid="control-feedback" />
      <form onSubmit={start}>
        <div class="row">
          <label class="field">
            <span>Duration (minutes, optional)</span>
            <input
              type="number"
              name="duration_minutes"
              min={1}
              max={1440}
              step={1}
              inputMode="numeric"
              value={duration}
              onInput={(e) => setDuration(e.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Notes (optional)</span>
            <input
              type="text"
              name="notes"
              maxLength={500}
              value={notes}
              onInput={(e) => setNotes(e.currentTarget.value)}
            />
          </label>
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={act.busy}>
            Start
          </button>
        </div>
      </form>
      <label class="field">
        <span>Stop reason (optional)</span>
        <input
          type="text"
          name="stop_reason"
          maxLength={200}
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
      </label>
      <div class="actions">
        <button
          type="button"
          class="danger"
          onClick={() =>
            void post(
              '/api/generator/stop',
              reason.trim() ? { reason: reason.trim() } : {},
              'Generator stopped',
            ).then((ok) => ok && setReason(''))
          }
        >
          Stop
        </button>
        {s.armed ? (
          <button
            type="button"
            disabled={act.busy}
            onClick={() => void post('/api/generator/disarm', undefined, 'Relay disarmed')}
          >
            Disarm
          </button>
        ) : (
          <button
            type="button"
            disabled={act.busy}
            onClick={() => void post('/api/generator/arm', undefined, 'Relay armed')}
          >
            Arm
          </button>
        )}
      </div>
      <p class="muted">Stop always works, armed or not. A start needs the relay armed.</p>
    </Card>
  );
}
