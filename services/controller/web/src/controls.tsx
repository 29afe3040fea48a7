import { Card } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { Feedback } from './feedback.js';
import { InputField } from './fields.js';
import type { GenState, StartResult } from './types.js';
import { useCommand } from './use-command.js';

/** Start (optional duration and notes), Stop (never disabled: a stop is always allowed), arm/disarm. */
export function Controls({ s, refresh }: { s: GenState; refresh: () => Promise<void> }) {
  const { act, command, post } = useCommand(refresh);
  const [duration, setDuration] = useState('');
  const [notes, setNotes] = useState('');
  const [reason, setReason] = useState('');

  const start = (e: Event) => {
    e.preventDefault();
    const body: { duration_minutes?: number; notes?: string } = {};
    if (duration.trim()) body.duration_minutes = Number(duration);
    if (notes.trim()) body.notes = notes.trim();
    // With the broker down the start is recorded but the relay is not yet confirmed: say so, in the
    // server's words (which path the ON takes), instead of a plain "started".
    const started = (r: StartResult) => (r.relay_confirmed ? 'Generator started' : r.message);
    void command(() => api<StartResult>('/api/generator/start', { method: 'POST', body }), started).then(
      (ok) => {
        if (ok) {
          setDuration('');
          setNotes('');
        }
      },
    );
  };

  return (
    <Card title="Control">
      <Feedback note={act.note} onClose={act.clear} testid="control-feedback" />
      <form onSubmit={start}>
        <div class="row">
          <InputField
            label="Duration (minutes, optional)"
            type="number"
            name="duration_minutes"
            min={1}
            max={1440}
            step={1}
            inputMode="numeric"
            value={duration}
            onValue={setDuration}
          />
          <InputField
            label="Notes (optional)"
            type="text"
            name="notes"
            maxLength={500}
            value={notes}
            onValue={setNotes}
          />
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={act.busy}>
            Start
          </button>
        </div>
      </form>
      <InputField
        label="Stop reason (optional)"
        type="text"
        name="stop_reason"
        maxLength={200}
        value={reason}
        onValue={setReason}
      />
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
