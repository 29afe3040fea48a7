import { Banner, Card, toneClass } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { ConditionChart } from './condition-chart.js';
import { DataTable } from './data-table.js';
import { Feedback, useAction, useLoad } from './feedback.js';
import type { ConditionLive, ConditionsOverview, Samples } from './types.js';

const HOURS = 6;
const STATE_TEXT: Record<ConditionLive['state'], string> = {
  off: 'off',
  idle: 'idle',
  start_pending: 'start pending',
  active: 'holding the run',
  stop_pending: 'stop pending',
  unknown: 'no value (never starts)',
};

const fmt = (v: number | null, unit: string | null) => (v === null ? '—' : `${v}${unit ? ` ${unit}` : ''}`);

function countdown(c: ConditionLive): string {
  if (c.countdown_seconds === null) return '';
  const m = Math.floor(c.countdown_seconds / 60);
  const s = c.countdown_seconds % 60;
  return `${c.state === 'start_pending' ? 'starts' : 'stops'} in ${m}:${String(s).padStart(2, '0')}`;
}

/** Start conditions: live values, each condition's state and countdown, a chart per condition. */
export function ConditionsPage() {
  const view = useLoad(() => api<ConditionsOverview>('/api/conditions'));
  useEffect(() => {
    const timer = setInterval(view.reload, 1000);
    return () => clearInterval(timer);
  }, []);
  const o = view.data;
  return (
    <>
      {view.error ? <Banner>{view.error}</Banner> : null}
      {o ? <LiveCard o={o} /> : null}
      {o
        ? o.conditions
            .filter((c) => c.enabled)
            .map((c) => (
              <ChartCard
                key={c.name}
                condition={c}
                unit={o.sources.find((s) => s.name === c.name)?.unit ?? null}
              />
            ))
        : null}
      {o ? <ConfigCard o={o} onSaved={view.reload} /> : null}
    </>
  );
}

function LiveCard({ o }: { o: ConditionsOverview }) {
  return (
    <Card title="Start conditions" wide>
      <dl class="readout">
        <div>
          <dt>Quiet hours</dt>
          <dd data-testid="quiet-hours">{o.quiet_hours_active ? 'now (quiet thresholds)' : 'no'}</dd>
        </div>
        <div>
          <dt>Grid</dt>
          <dd>{o.grid_present === null ? 'unknown' : o.grid_present ? 'present' : 'absent'}</dd>
        </div>
        <div>
          <dt>Minimum run left</dt>
          <dd>{o.minimum_run_remaining_seconds === null ? '—' : `${o.minimum_run_remaining_seconds} s`}</dd>
        </div>
      </dl>
      <DataTable
        testid="conditions-table"
        label="Start conditions"
        head={
          <tr>
            <th>Condition</th>
            <th>Value</th>
            <th>Start / stop</th>
            <th>State</th>
            <th>Countdown</th>
          </tr>
        }
      >
        {o.conditions.map((c) => {
          const unit = o.sources.find((s) => s.name === c.name)?.unit ?? null;
          return (
            <tr key={c.name} data-testid={`condition-${c.name}`}>
              <td>{c.name}</td>
              <td>{fmt(c.value, unit)}</td>
              <td>
                {fmt(c.start_value, unit)} / {fmt(c.stop_value, unit)}
              </td>
              <td
                class={
                  c.state === 'active'
                    ? toneClass('running')
                    : c.state === 'unknown'
                      ? toneClass('stale')
                      : ''
                }
              >
                {STATE_TEXT[c.state]}
              </td>
              <td data-testid={`countdown-${c.name}`}>{countdown(c)}</td>
            </tr>
          );
        })}
      </DataTable>
      <DataTable
        testid="sources-table"
        label="Sources"
        head={
          <tr>
            <th>Source</th>
            <th>Type</th>
            <th>Topic</th>
            <th>Value</th>
            <th>Status</th>
          </tr>
        }
      >
        {o.sources.map((s) => (
          <tr key={s.name} data-testid={`source-${s.name}`}>
            <td>{s.name}</td>
            <td>{s.type}</td>
            <td>
              <code>{s.topic ?? 'PUT /api/conditions/sources/…/value'}</code>
            </td>
            <td>{fmt(s.value, s.unit)}</td>
            <td class={toneClass(s.status === 'ok' ? 'ok' : 'stale')}>{s.status}</td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}

function ChartCard({ condition, unit }: { condition: ConditionLive; unit: string | null }) {
  const samples = useLoad(() =>
    api<Samples>(`/api/conditions/samples?source=${condition.name}&hours=${HOURS}`),
  );
  useEffect(() => {
    const timer = setInterval(samples.reload, 15_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <Card title={`${condition.name}: last ${HOURS} hours`}>
      <ConditionChart
        samples={samples.data?.samples ?? []}
        condition={condition}
        unit={unit}
        hours={HOURS}
        nowSec={Math.floor(Date.now() / 1000)}
      />
    </Card>
  );
}

/** The whole configuration as JSON (the README's examples paste in as they are). */
function ConfigCard({ o, onSaved }: { o: ConditionsOverview; onSaved: () => void }) {
  const act = useAction();
  const [text, setText] = useState(() => JSON.stringify(o.config, null, 2));
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const saved = await api<ConditionsOverview>('/api/conditions/config', {
        method: 'PUT',
        body: JSON.parse(text),
      });
      setText(JSON.stringify(saved.config, null, 2));
      onSaved();
    }, 'Start conditions saved');
  };
  return (
    <Card title="Configuration" wide>
      <form onSubmit={save}>
        <label class="field">
          <span>Start conditions and sources (JSON)</span>
          <textarea
            name="conditions-config"
            rows={16}
            spellcheck={false}
            value={text}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        <button type="submit" class="primary" disabled={act.busy}>
          Save start conditions
        </button>
      </form>
      <Feedback note={act.note} onClose={act.clear} testid="conditions-note" />
    </Card>
  );
}
