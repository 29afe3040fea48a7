import { Banner, Card, formatDuration, toneClass } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { DataTable } from './data-table.js';
import { Feedback, useAction, useLoad } from './feedback.js';
import { GensetCard } from './genset-card.js';
import { type Choice, InputField, SelectField } from './fields.js';
import { MaintenanceCard } from './maintenance-card.js';
import { RuntimeChart, runtimePerDay } from './runtime-chart.js';
import type { ExerciseReport, HealthStatus, History } from './types.js';

const SOURCES: Choice<HealthStatus['running_feedback_source']>[] = [
  { value: 'none', label: 'None (trust the relay)' },
  { value: 'gpio', label: 'GPIO input on the controller' },
  { value: 'relaynode', label: 'GPIO input on the relay node' },
  { value: 'mqtt', label: 'MQTT topic (Home Assistant, smart plug)' },
  { value: 'api', label: 'REST API' },
  { value: 'genset', label: "The generator's own controller (Modbus, read by the relay node)" },
];
const POLICIES: Choice<HealthStatus['fail_to_start_policy']>[] = [
  { value: 'drop_and_lockout', label: 'Drop the relay and lock out' },
  { value: 'keep_running', label: 'Keep the relay ON, alarm only' },
];
const ALARMS: Record<NonNullable<HealthStatus['alarm']>, string> = {
  fail_to_start: 'Fail to start: no running feedback after the relay closed',
  unexpected_stop: 'Unexpected stop: the generator stopped while Outpost ran it',
  exercise_failed: 'Exercise failed',
  relay_not_confirmed: 'Relay not confirmed: the relay node did not report the relay ON for the run',
  relay_node_report_unverified:
    'Relay node report unverified: a state report without the pinned node key was ignored',
  lease_not_published: 'Lease not published: the controller could not send its heartbeat lease',
};

function feedbackText(h: HealthStatus): string {
  if (h.running_feedback_source === 'none') return 'no running feedback';
  if (h.running_feedback === null) return 'no reading yet';
  return h.running_feedback ? 'running' : 'not running';
}

/** Generator health: is it really running, its alarms, engine hours, service and exercise record. */
export function HealthPage() {
  const status = useLoad(() => api<HealthStatus>('/api/health'));
  useEffect(() => {
    const timer = setInterval(status.reload, 2000);
    return () => clearInterval(timer);
  }, []);
  const h = status.data;
  // Setting the hour meter changes what is due: the maintenance list is read again.
  const [meterSets, setMeterSets] = useState(0);
  const meterSet = () => {
    status.reload();
    setMeterSets((n) => n + 1);
  };
  return (
    <>
      {status.error ? <Banner>{status.error}</Banner> : null}
      {h?.alarm ? (
        <div data-testid="health-alarm">
          <Banner kind="error">{ALARMS[h.alarm]}</Banner>
        </div>
      ) : null}
      <GensetCard />
      {h ? <FeedbackCard h={h} onSaved={status.reload} /> : null}
      {h ? <HourMeterCard h={h} onSaved={meterSet} /> : null}
      <MaintenanceCard key={meterSets} onChange={status.reload} />
      <ExerciseCard />
      <RunHoursCard />
    </>
  );
}

function FeedbackCard({ h, onSaved }: { h: HealthStatus; onSaved: () => void }) {
  const act = useAction();
  const [source, setSource] = useState(h.running_feedback_source);
  const [policy, setPolicy] = useState(h.fail_to_start_policy);
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      await api('/api/health/settings', {
        method: 'PUT',
        body: { running_feedback_source: source, fail_to_start_policy: policy },
      });
      onSaved();
    }, 'Running feedback settings saved');
  };
  return (
    <Card title="Running feedback">
      <dl class="readout">
        <div>
          <dt>Feedback</dt>
          <dd data-testid="feedback-status" class={toneClass(h.running_feedback ? 'running' : 'idle')}>
            {feedbackText(h)}
          </dd>
        </div>
        <div>
          <dt>Confirm within</dt>
          <dd>{h.start_confirm_seconds} s</dd>
        </div>
        <div>
          <dt>Running without a command</dt>
          <dd data-testid="external-run">{h.external_run_active ? 'yes' : 'no'}</dd>
        </div>
      </dl>
      <form class="row" onSubmit={save}>
        <SelectField
          label="Source"
          name="running_feedback_source"
          value={source}
          choices={SOURCES}
          onValue={setSource}
        />
        <SelectField
          label="When it does not start"
          name="fail_to_start_policy"
          value={policy}
          choices={POLICIES}
          onValue={setPolicy}
        />
        <button type="submit" class="primary" disabled={act.busy}>
          Save feedback settings
        </button>
      </form>
      <Feedback note={act.note} onClose={act.clear} testid="feedback-settings-note" />
    </Card>
  );
}

function HourMeterCard({ h, onSaved }: { h: HealthStatus; onSaved: () => void }) {
  const act = useAction();
  const [hours, setHours] = useState('');
  const set = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      await api('/api/health/hour-meter', { method: 'PUT', body: { hours: Number(hours) } });
      setHours('');
      onSaved();
    }, 'Hour meter set');
  };
  return (
    <Card title="Engine hours">
      <p class="readout" data-testid="engine-hours">
        {h.engine_hours.toFixed(1)} h
      </p>
      <form class="row" onSubmit={set}>
        <InputField
          label="Set to the generator's own meter"
          type="number"
          name="engine_hours"
          min={0}
          step="0.1"
          value={hours}
          onValue={setHours}
        />
        <button type="submit" disabled={act.busy || hours === ''}>
          Set hour meter
        </button>
      </form>
      <Feedback note={act.note} onClose={act.clear} testid="hour-meter-note" />
    </Card>
  );
}

function ExerciseCard() {
  const reports = useLoad(() => api<ExerciseReport[]>('/api/exercise/reports?limit=20'));
  return (
    <Card title="Exercise reports" wide>
      {reports.error ? <Banner>{reports.error}</Banner> : null}
      {reports.data && reports.data.length === 0 ? <p class="muted">No exercise run yet.</p> : null}
      {reports.data && reports.data.length > 0 ? (
        <DataTable
          testid="exercise-reports"
          label="Exercise reports"
          head={
            <>
              <th>Started</th>
              <th>Confirmed</th>
              <th class="num">Time to confirm</th>
              <th class="num">Ran</th>
              <th>Full duration</th>
              <th>Result</th>
            </>
          }
        >
          {reports.data.map((r) => (
            <tr key={`${r.run_id}-${r.started_at}`}>
              <td>{new Date(r.started_at * 1000).toLocaleString()}</td>
              <td>{r.confirmed === null ? 'no feedback' : r.confirmed ? 'yes' : 'no'}</td>
              <td class="num">{r.confirm_seconds === null ? '–' : `${r.confirm_seconds} s`}</td>
              <td class="num">{formatDuration(r.ran_seconds)}</td>
              <td>{r.full_duration ? 'yes' : `no (${r.stop_reason})`}</td>
              <td class={toneClass(r.passed ? 'passed' : 'failed')}>{r.passed ? 'passed' : 'failed'}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </Card>
  );
}

function RunHoursCard() {
  const runs = useLoad(() => api<History>('/api/generator/history?limit=1000'));
  return (
    <Card title="Run hours">
      {runs.data ? <RuntimeChart data={runtimePerDay(runs.data, 30, Date.now() / 1000)} /> : null}
    </Card>
  );
}
