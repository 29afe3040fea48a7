import { Banner, Card, formatDuration, toneClass } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { useLoad } from './feedback.js';
import { RuntimeChart, runtimePerDay } from './runtime-chart.js';
import { at } from './time.js';
import { HISTORY_TOTAL_HEADER, type History, type Stats, TRIGGERS } from './types.js';

export function HistoryPage() {
  const [trigger, setTrigger] = useState('');
  const [limit, setLimit] = useState(50);
  const [days, setDays] = useState(30);
  const q = new URLSearchParams({ limit: String(limit) });
  if (trigger) q.set('trigger_type', trigger);
  const runs = useLoad(async () => {
    let total: number | null = null;
    const list = await api<History>(`/api/generator/history?${q}`, {
      onHeaders: (h) => {
        const n = Number(h.get(HISTORY_TOTAL_HEADER));
        total = Number.isFinite(n) ? n : null;
      },
    });
    return { runs: list, total: total ?? list.length };
  });
  const chartRuns = useLoad(() =>
    api<History>(`/api/generator/history?limit=1000${trigger ? `&trigger_type=${trigger}` : ''}`),
  );
  const stats = useLoad(() => api<Stats>(`/api/generator/stats?days=${days}`));
  const reload = () => {
    runs.reload();
    chartRuns.reload();
    stats.reload();
  };

  return (
    <>
      <Card title="Filters" wide>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            reload();
          }}
        >
          <label class="field">
            <span>Trigger</span>
            <select name="trigger_type" value={trigger} onChange={(e) => setTrigger(e.currentTarget.value)}>
              <option value="">all</option>
              {TRIGGERS.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Runs shown</span>
            <input
              type="number"
              name="limit"
              min={1}
              max={1000}
              value={limit}
              onInput={(e) => setLimit(Number(e.currentTarget.value) || 50)}
            />
          </label>
          <label class="field">
            <span>Period (days)</span>
            <input
              type="number"
              name="days"
              min={1}
              max={3650}
              value={days}
              onInput={(e) => setDays(Number(e.currentTarget.value) || 30)}
            />
          </label>
          <button type="submit" class="primary">
            Apply
          </button>
        </form>
      </Card>
      <Card title="Statistics">
        {stats.error ? <Banner>{stats.error}</Banner> : null}
        {stats.data ? (
          <dl class="readout" data-testid="stats">
            <div>
              <dt>Runs</dt>
              <dd data-testid="stats-runs">{stats.data.total_runs}</dd>
            </div>
            <div>
              <dt>Total runtime</dt>
              <dd>{stats.data.total_runtime_hours.toFixed(2)} h</dd>
            </div>
            <div>
              <dt>Average run</dt>
              <dd>{formatDuration(stats.data.average_runtime_seconds)}</dd>
            </div>
            <div>
              <dt>Period</dt>
              <dd>{stats.data.period_days} days</dd>
            </div>
            {Object.entries(stats.data.runs_by_trigger).map(([t, n]) => (
              <div key={t}>
                <dt>{t}</dt>
                <dd>
                  {n} · {formatDuration(stats.data?.runtime_by_trigger[t] ?? 0)}
                </dd>
              </div>
            ))}
          </dl>
        ) : null}
      </Card>
      <Card title="Runtime per day">
        {chartRuns.data ? (
          <RuntimeChart data={runtimePerDay(chartRuns.data, Math.min(days, 90), Date.now() / 1000)} />
        ) : null}
      </Card>
      <Card title="Run history" wide>
        {runs.error ? <Banner>{runs.error}</Banner> : null}
        {runs.data ? (
          <>
            <p class="muted">
              {runs.data.runs.length} of {runs.data.total} runs
            </p>
            <section class="table-wrap" aria-label="Run history table" tabindex={0}>
              <table data-testid="history" aria-label="Run history">
                <thead>
                  <tr>
                    <th>Start</th>
                    <th>Stop</th>
                    <th class="num">Duration</th>
                    <th>Trigger</th>
                    <th>Stop reason</th>
                    <th class="num">Fuel (gal)</th>
                    <th>Fuel / load</th>
                    <th>Notes</th>
                  </tr>
                </thead>
                <tbody>
                  {runs.data.runs.map((r) => (
                    <tr key={r.id}>
                      <td>{at(r.start_time)}</td>
                      <td>
                        {r.stop_time ? at(r.stop_time) : <span class={toneClass('running')}>running</span>}
                      </td>
                      <td class="num">{formatDuration(r.duration_seconds)}</td>
                      <td>{withValue(r.trigger_type, r.trigger_value)}</td>
                      <td>{r.stop_reason ? withValue(r.stop_reason, r.stop_value) : '–'}</td>
                      <td class="num">
                        {r.estimated_fuel_used === null ? '–' : r.estimated_fuel_used.toFixed(3)}
                      </td>
                      <td>
                        {r.fuel_type_at_run ?? '–'} / {r.load_at_run ?? '–'}%
                      </td>
                      <td>{[r.notes, r.stop_note].filter(Boolean).join(' · ') || '–'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          </>
        ) : null}
      </Card>
    </>
  );
}

/** A start condition's trigger or stop reason with the value that caused it (`soc at 27.5`). */
function withValue(name: string, value: number | null | undefined): string {
  return value === null || value === undefined ? name : `${name} at ${value}`;
}
