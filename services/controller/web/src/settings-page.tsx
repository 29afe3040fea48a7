import { Banner, Card, formatDuration, toneClass } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { api, session } from './api.js';
import { Feedback, useAction } from './feedback.js';
import { CheckField, type Choice, InputField, SelectField } from './fields.js';
import type { ControllerSettings, FuelSettings, FuelUsage, RuntimeLimits } from './types.js';
import { useDraft } from './use-draft.js';

export function SettingsPage() {
  return (
    <>
      <FuelCard />
      <LimitsCard />
      <StartupCard />
      <PasswordCard />
    </>
  );
}

type Policy = ControllerSettings['boot_arming_policy'];
const POLICIES: Choice<Policy>[] = [
  { value: 'fail_safe', label: 'Start disarmed (fail safe)' },
  { value: 'preserve_state', label: 'Keep the arming it had before the restart' },
];

/** What the controller does with arming when it starts; BOOT_ARMING_POLICY in the environment wins. */
function StartupCard() {
  const {
    loaded: settings,
    act,
    draft: policy,
    setDraft: setPolicy,
    save,
  } = useDraft({
    load: () => api<ControllerSettings>('/api/settings'),
    draftOf: (s) => s.boot_arming_policy,
    store: (p) => api('/api/settings', { method: 'PUT', body: { boot_arming_policy: p } }),
    saved: 'Start-up arming saved',
  });
  const fromEnv = settings.data?.boot_arming_policy_from_env ?? null;
  return (
    <Card title="After a restart">
      <Feedback note={act.note} onClose={act.clear} testid="startup-feedback" />
      {settings.error ? <Banner>{settings.error}</Banner> : null}
      {fromEnv ? (
        <p class="muted" data-testid="policy-from-env">
          BOOT_ARMING_POLICY={fromEnv} is set in the environment and wins over this setting.
        </p>
      ) : null}
      {policy ? (
        <form onSubmit={save}>
          <SelectField
            label="Arming at start"
            name="boot_arming_policy"
            value={policy}
            choices={POLICIES}
            onValue={setPolicy}
          />
          <button type="submit" class="primary" disabled={act.busy}>
            Save start-up arming
          </button>
        </form>
      ) : null}
    </Card>
  );
}

/** A new password ends every session, this one included, as the API does. */
function PasswordCard() {
  const act = useAction();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      await api('/api/auth/password', {
        method: 'POST',
        body: { current_password: current, new_password: next },
      });
      session.end('Password changed; log in again with the new one');
    });
  };
  return (
    <Card title="Password">
      <Feedback note={act.note} onClose={act.clear} testid="password-feedback" />
      <form onSubmit={save}>
        <InputField
          label="Current password"
          type="password"
          name="current_password"
          autocomplete="current-password"
          value={current}
          onValue={setCurrent}
        />
        <InputField
          label="New password (at least 10 characters)"
          type="password"
          name="new_password"
          autocomplete="new-password"
          minLength={10}
          value={next}
          onValue={setNext}
        />
        <button type="submit" class="primary" disabled={act.busy || !current || next.length < 10}>
          Change password
        </button>
      </form>
    </Card>
  );
}

const FUEL_TYPES: Choice<FuelSettings['fuel_type']>[] = [
  { value: 'lpg', label: 'LPG' },
  { value: 'natural_gas', label: 'Natural gas' },
  { value: 'diesel', label: 'Diesel' },
];
const LOADS: Choice<string>[] = [
  { value: '50', label: '50 %' },
  { value: '100', label: '100 %' },
];

function FuelCard() {
  const {
    loaded: usage,
    act,
    draft,
    setDraft,
    save,
  } = useDraft({
    load: () => api<FuelUsage>('/api/generator/fuel-usage'),
    draftOf: (u) => u.settings,
    store: (draft) => api('/api/generator/fuel-settings', { method: 'PUT', body: draft }),
    saved: 'Fuel settings saved',
  });
  const reset = () => {
    if (!confirm('Reset the fuel usage counter to zero?')) return;
    void act.run(async () => {
      await api('/api/generator/fuel-usage/reset', { method: 'POST' });
      usage.reload();
    }, 'Fuel usage reset');
  };

  return (
    <Card title="Fuel">
      <Feedback note={act.note} onClose={act.clear} testid="fuel-feedback" />
      {usage.error ? <Banner>{usage.error}</Banner> : null}
      {usage.data ? (
        <dl class="readout" data-testid="fuel-usage">
          <div>
            <dt>Used since reset</dt>
            <dd>{usage.data.total_gallons.toFixed(3)} gal</dd>
          </div>
          <div>
            <dt>Runtime</dt>
            <dd>{formatDuration(usage.data.total_runtime_seconds)}</dd>
          </div>
          <div>
            <dt>Runs</dt>
            <dd>{usage.data.runs}</dd>
          </div>
          <div>
            <dt>Since</dt>
            <dd>{usage.data.since ? new Date(usage.data.since * 1000).toLocaleDateString() : 'always'}</dd>
          </div>
        </dl>
      ) : null}
      <div class="actions">
        <button type="button" disabled={act.busy} onClick={reset}>
          Reset fuel usage
        </button>
      </div>
      {draft ? (
        <form onSubmit={save}>
          <div class="row">
            <SelectField
              label="Fuel type"
              name="fuel_type"
              value={draft.fuel_type}
              choices={FUEL_TYPES}
              onValue={(fuel_type) => setDraft({ ...draft, fuel_type })}
            />
            <SelectField
              label="Expected load"
              name="expected_load"
              value={String(draft.expected_load)}
              choices={LOADS}
              onValue={(v) => setDraft({ ...draft, expected_load: Number(v) as 50 | 100 })}
            />
          </div>
          <div class="row">
            <InputField
              label="Gallons per hour at 50 %"
              type="number"
              name="gph_at_50"
              min={0}
              max={1000}
              step="any"
              value={draft.gph_at_50}
              onValue={(v) => setDraft({ ...draft, gph_at_50: Number(v) })}
            />
            <InputField
              label="Gallons per hour at 100 %"
              type="number"
              name="gph_at_100"
              min={0}
              max={1000}
              step="any"
              value={draft.gph_at_100}
              onValue={(v) => setDraft({ ...draft, gph_at_100: Number(v) })}
            />
          </div>
          <button type="submit" class="primary" disabled={act.busy}>
            Save fuel settings
          </button>
        </form>
      ) : null}
    </Card>
  );
}

type LimitDraft = Pick<
  RuntimeLimits,
  'runtime_limits_enabled' | 'max_run_minutes' | 'cooldown_minutes' | 'lockout_on_max_runtime'
>;

function LimitsCard() {
  const {
    loaded: limits,
    act,
    draft,
    setDraft,
    save,
  } = useDraft({
    load: () => api<RuntimeLimits>('/api/generator/runtime-limits'),
    draftOf: (d): LimitDraft => ({
      runtime_limits_enabled: d.runtime_limits_enabled,
      max_run_minutes: d.max_run_minutes,
      cooldown_minutes: d.cooldown_minutes,
      lockout_on_max_runtime: d.lockout_on_max_runtime,
    }),
    store: (draft) => api('/api/generator/runtime-limits', { method: 'PUT', body: draft }),
    saved: 'Runtime limits saved',
  });

  return (
    <Card title="Runtime limits">
      <Feedback note={act.note} onClose={act.clear} testid="limits-feedback" />
      {limits.error ? <Banner>{limits.error}</Banner> : null}
      {limits.data ? (
        <p data-testid="limits-status">
          {limits.data.lockout_active ? <span class={toneClass('lockout')}>Lockout active. </span> : null}
          {limits.data.cooldown_active ? (
            <span class={toneClass('cooldown')}>
              Cooldown: {formatDuration(limits.data.cooldown_remaining_seconds)} left.{' '}
            </span>
          ) : null}
          {!limits.data.lockout_active && !limits.data.cooldown_active ? (
            <span class="muted">No lockout or cooldown.</span>
          ) : null}
        </p>
      ) : null}
      {draft ? (
        <form onSubmit={save}>
          <CheckField
            label="Limit continuous runtime"
            name="runtime_limits_enabled"
            checked={draft.runtime_limits_enabled}
            onChange={(on) => setDraft({ ...draft, runtime_limits_enabled: on })}
          />
          <div class="row">
            <InputField
              label="Maximum run (minutes)"
              type="number"
              name="max_run_minutes"
              min={1}
              max={10080}
              value={draft.max_run_minutes}
              onValue={(v) => setDraft({ ...draft, max_run_minutes: Number(v) })}
            />
            <InputField
              label="Cooldown (minutes)"
              type="number"
              name="cooldown_minutes"
              min={0}
              max={10080}
              value={draft.cooldown_minutes}
              onValue={(v) => setDraft({ ...draft, cooldown_minutes: Number(v) })}
            />
          </div>
          <CheckField
            label="Lock out after the maximum runtime (needs acknowledgment)"
            name="lockout_on_max_runtime"
            checked={draft.lockout_on_max_runtime}
            onChange={(on) => setDraft({ ...draft, lockout_on_max_runtime: on })}
          />
          <button type="submit" class="primary" disabled={act.busy}>
            Save runtime limits
          </button>
        </form>
      ) : null}
    </Card>
  );
}
