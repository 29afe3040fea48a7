import { Card, toneClass } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { Feedback } from './feedback.js';
import { CheckField, InputField } from './fields.js';
import type { GenState } from './types.js';
import { useCommand } from './use-command.js';

/** Overrides, the timed Quiet override and the lockout acknowledgment. */
export function SafetyCard({ s, refresh }: { s: GenState; refresh: () => Promise<void> }) {
  const { act, post } = useCommand(refresh);
  const [ack, setAck] = useState(false);
  const [quietMinutes, setQuietMinutes] = useState('60');

  return (
    <Card title="Override and lockout">
      <Feedback note={act.note} onClose={act.clear} testid="safety-feedback" />
      <p>
        Override: <strong data-testid="override">{s.override ?? 'none'}</strong>
      </p>
      <div class="actions">
        <button
          type="button"
          disabled={act.busy || s.override === 'force_run'}
          onClick={() =>
            void post('/api/override/enable', { override_type: 'force_run' }, 'Override force_run enabled')
          }
        >
          Force run
        </button>
        <button
          type="button"
          disabled={act.busy || s.override === 'force_stop'}
          onClick={() =>
            void post('/api/override/enable', { override_type: 'force_stop' }, 'Override force_stop enabled')
          }
        >
          Force stop
        </button>
        <button
          type="button"
          disabled={act.busy || !s.override}
          onClick={() => void post('/api/override/disable', undefined, 'Override disabled')}
        >
          End override
        </button>
      </div>
      <p class="muted">
        force_run keeps an input-signal run going; force_stop blocks automatic starts. Both last until ended.
      </p>

      <fieldset>
        <legend>Quiet override</legend>
        <div class="row">
          <InputField
            label="Minutes"
            type="number"
            name="quiet_minutes"
            min={1}
            max={1440}
            value={quietMinutes}
            onValue={setQuietMinutes}
          />
          <button
            type="button"
            disabled={act.busy}
            onClick={() =>
              void post('/api/override/quiet', { minutes: Number(quietMinutes) }, 'Quiet override enabled')
            }
          >
            Ignore Quiet
          </button>
          <button
            type="button"
            disabled={act.busy || !s.quiet_override_active}
            onClick={() => void post('/api/override/quiet/cancel', undefined, 'Quiet override cancelled')}
          >
            Cancel
          </button>
        </div>
      </fieldset>

      <fieldset>
        <legend>Runtime lockout</legend>
        <p data-testid="lockout-state">
          {s.lockout_active ? (
            <span class={toneClass('lockout')}>Lockout active</span>
          ) : (
            <span class="muted">No lockout</span>
          )}
          {s.cooldown_active ? (
            <span class="muted"> · cooldown {s.cooldown_remaining_seconds ?? 0} s left</span>
          ) : null}
        </p>
        <CheckField
          label="I have checked the generator and acknowledge the lockout"
          name="acknowledge"
          checked={ack}
          onChange={setAck}
        />
        <button
          type="button"
          disabled={act.busy || !ack}
          onClick={() =>
            void post('/api/generator/clear-lockout', { acknowledge: true }, 'Lockout cleared').then(
              (ok) => ok && setAck(false),
            )
          }
        >
          Clear lockout
        </button>
      </fieldset>
    </Card>
  );
}
