import { Banner, Card, formatDuration } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { api, session } from './api.js';
import { Feedback, useAction, useLoad } from './feedback.js';
import type { ControllerSettings, FuelSettings, FuelUsage, RuntimeLimits } from './types.js';

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

const POLICIES: { value: ControllerSettings['boot_arming_policy']; label: string }[] = [
  { value: 'fail_safe', label: 'Start disarmed (fail safe)' },
  { value: 'preserve_state', label: 'Keep the arming it had before the restart' },
];

/** What the controller does with arming when it starts; BOOT_ARMING_POLICY in the environment wins. */
function StartupCard() {
  const settings = useLoad(() => api<ControllerSettings>('/api/settings'));
  const act = useAction();
  const [policy, setPolicy] = useState<ControllerSettings['boot_arming_policy'] | null>(null);
  useEffect(() => {
    if (settings.data) setPolicy(settings.data.boot_arming_policy);
  }, [settings.data]);
  const fromEnv = settings.data?.boot_arming_policy_from_env ?? null;
  const save = (e: Event) => {
    e.preventDefault();
    if (!policy) return;
    void act.run(async () => {
      await api('/api/settings', { method: 'PUT', body: { boot_arming_policy: policy } });
      settings.reload();
    }, 'Start-up arming saved');
  };
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
          <label class="field">
            <span>Arming at start</span>
            <select
              name="boot_arming_policy"
              value={policy}
              onChange={(e) => setPolicy(e.currentTarget.value as ControllerSettings['boot_arming_policy'])}
            >
              {POLICIES.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
          </label>
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
        <label class="field">
          <span>Current password</span>
          <input
            type="password"
            name="current_password"
            autocomplete="current-password"
            value={current}
            onInput={(e) => setCurrent(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>New password (at least 10 characters)</span>
          <input
            type="password"
            name="new_password"
            autocomplete="new-password"
            minLength={10}
            value={next}
            onInput={(e) => setNext(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={act.busy || !current || next.length < 10}>
          Change password
        </button>
      </form>
    </Card>
  );
}

function FuelCard() {
  const usage = useLoad(() => api<FuelUsage>('/api/generator/fuel-usage'));
  const act = useAction();
  const [draft, setDraft] = useState<FuelSettings | null>(null);
  useEffect(() => {
    if (usage.data) setDraft(usage.data.settings);
  }, [usage.data]);

  const save = (e: Event) => {
    e.preventDefault();
    if (!draft) return;
    void act.run(async () => {
      await api('/api/generator/fuel-settings', { method: 'PUT', body: draft });
      usage.reload();
    }, 'Fuel settings saved');
  };
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
            <label class="field">
              <span>Fuel type</span>
              <select
                name="fuel_type"
                value={draft.fuel_type}
                onChange={(e) =>
                  setDraft({ ...draft, fuel_type: e.currentTarget.value as FuelSettings['fuel_type'] })
                }
              >
                <option value="lpg">LPG</option>
                <option value="natural_gas">Natural gas</option>
                <option value="diesel">Diesel</option>
              </select>
            </label>
            <label class="field">
              <span>Expected load</span>
              <select
                name="expected_load"
                value={String(draft.expected_load)}
                onChange={(e) =>
                  setDraft({ ...draft, expected_load: Number(e.currentTarget.value) as 50 | 100 })
                }
              >
                <option value="50">50 %</option>
                <option value="100">100 %</option>
              </select>
            </label>
          </div>
          <div class="row">
            <label class="field">
              <span>Gallons per hour at 50 %</span>
              <input
                type="number"
                name="gph_at_50"
                min={0}
                max={1000}
                step="any"
                value={draft.gph_at_50}
                onInput={(e) => setDraft({ ...draft, gph_at_50: Number(e.currentTarget.value) })}
              />
            </label>
            <label class="field">
              <span>Gallons per hour at 100 %</span>
              <input
                type="number"
                name="gph_at_100"
                min={0}
                max={1000}
                step="any"
                value={draft.gph_at_100}
                onInput={(e) => setDraft({ ...draft, gph_at_100: Number(e.currentTarget.value) })}
              />
            </label>
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
  const limits = useLoad(() => api<RuntimeLimits>('/api/generator/runtime-limits'));
  const act = useAction();
  const [draft, setDraft] = useState<LimitDraft | null>(null);
  useEffect(() => {
    const d = limits.data;
    if (d)
      setDraft({
        runtime_limits_enabled: d.runtime_limits_enabled,
        max_run_minutes: d.max_run_minutes,
        cooldown_minutes: d.cooldown_minutes,
        lockout_on_max_runtime: d.lockout_on_max_runtime,
      });
  }, [limits.data]);

  const save = (e: Event) => {
    e.preventDefault();
    if (!draft) return;
    void act.run(async () => {
      await api('/api/generator/runtime-limits', { method: 'PUT', body: draft });
      limits.reload();
    }, 'Runtime limits saved');
  };

  return (
    <Card title="Runtime limits">
      <Feedback note={act.note} onClose={act.clear} testid="limits-feedback" />
      {limits.error ? <Banner>{limits.error}</Banner> : null}
      {limits.data ? (
        <p data-testid="limits-status">
          {limits.data.lockout_active ? <span class="bad">Lockout active. </span> : null}
          {limits.data.cooldown_active ? (
            <span class="bad">Cooldown: {formatDuration(limits.data.cooldown_remaining_seconds)} left. </span>
          ) : null}
          {!limits.data.lockout_active && !limits.data.cooldown_active ? (
            <span class="muted">No lockout or cooldown.</span>
          ) : null}
        </p>
      ) : null}
      {draft ? (
        <form onSubmit={save}>
          <label class="check">
            <input
              type="checkbox"
              name="runtime_limits_enabled"
              checked={draft.runtime_limits_enabled}
              onChange={(e) => setDraft({ ...draft, runtime_limits_enabled: e.currentTarget.checked })}
            />
            <span>Limit continuous runtime</span>
          </label>
          <div class="row">
            <label class="field">
              <span>Maximum run (minutes)</span>
              <input
                type="number"
                name="max_run_minutes"
                min={1}
                max={10080}
                value={draft.max_run_minutes}
                onInput={(e) => setDraft({ ...draft, max_run_minutes: Number(e.currentTarget.value) })}
              />
            </label>
            <label class="field">
              <span>Cooldown (minutes)</span>
              <input
                type="number"
                name="cooldown_minutes"
                min={0}
                max={10080}
                value={draft.cooldown_minutes}
                onInput={(e) => setDraft({ ...draft, cooldown_minutes: Number(e.currentTarget.value) })}
              />
            </label>
          </div>
          <label class="check">
            <input
              type="checkbox"
              name="lockout_on_max_runtime"
              checked={draft.lockout_on_max_runtime}
              onChange={(e) => setDraft({ ...draft, lockout_on_max_runtime: e.currentTarget.checked })}
            />
            <span>Lock out after the maximum runtime (needs acknowledgment)</span>
          </label>
          <button type="submit" class="primary" disabled={act.busy}>
            Save runtime limits
          </button>
        </form>
      ) : null}
    </Card>
  );
}
