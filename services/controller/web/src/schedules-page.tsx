import { Banner, Card } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { Feedback, useAction, useLoad } from './feedback.js';
import type { ExerciseStatus, Schedule } from './types.js';

/** days_of_week follow cron: 0 = Sunday … 6 = Saturday. */
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const at = (s: number | null) => (s ? new Date(s * 1000).toLocaleString() : '–');

export function SchedulesPage() {
  return (
    <>
      <SchedulesCard />
      <ExerciseCard />
    </>
  );
}

function SchedulesCard() {
  const list = useLoad(() => api<Schedule[]>('/api/schedules'));
  const act = useAction();
  const [name, setName] = useState('');
  const [days, setDays] = useState<number[]>([]);
  const [time, setTime] = useState('06:00');
  const [duration, setDuration] = useState('30');

  const create = (e: Event) => {
    e.preventDefault();
    void act
      .run(async () => {
        await api('/api/schedules', {
          body: { name: name.trim(), days_of_week: days, start_time: time, duration_minutes: Number(duration), enabled: true },
        });
        list.reload();
      }, 'Schedule created')
      .then((ok) => {
        if (ok) {
          setName('');
          setDays([]);
        }
      });
  };
  const toggle = (s: Schedule) =>
    void act.run(async () => {
      await api(`/api/schedules/${s.id}`, { method: 'PUT', body: { enabled: !s.enabled } });
      list.reload();
    }, s.enabled ? `Schedule "${s.name}" disabled` : `Schedule "${s.name}" enabled`);
  const remove = (s: Schedule) => {
    if (!confirm(`Delete the schedule "${s.name}"?`)) return;
    void act.run(async () => {
      await api(`/api/schedules/${s.id}`, { method: 'DELETE' });
      list.reload();
    }, 'Schedule deleted');
  };

  return (
    <Card title="Schedules" wide>
      <Feedback note={act.note} onClose={act.clear} testid="schedules-feedback" />
      {list.error ? <Banner>{list.error}</Banner> : null}
      <div class="table-wrap">
        <table data-testid="schedules">
          <thead>
            <tr>
              <th>Name</th>
              <th>Days</th>
              <th>Start</th>
              <th class="num">Minutes</th>
              <th>Next run</th>
              <th>Last result</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(list.data ?? []).map((s) => (
              <tr key={s.id} class={s.enabled ? '' : 'row-off'}>
                <td>{s.name}</td>
                <td>{s.days_of_week.map((d) => DAYS[d]).join(' ')}</td>
                <td>{s.start_time}</td>
                <td class="num">{s.duration_minutes}</td>
                <td>{s.enabled ? at(s.next_execution) : 'disabled'}</td>
                <td>{s.last_result ?? '–'}</td>
                <td>
                  <div class="row">
                    <button type="button" disabled={act.busy} onClick={() => toggle(s)}>
                      {s.enabled ? 'Disable' : 'Enable'}
                    </button>
                    <button type="button" disabled={act.busy} onClick={() => remove(s)}>
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.data && list.data.length === 0 ? <p class="muted">No schedules yet.</p> : null}
      <form onSubmit={create}>
        <h2>New schedule</h2>
        <div class="row">
          <label class="field">
            <span>Name</span>
            <input type="text" name="schedule_name" maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label class="field">
            <span>Start (HH:MM, controller time)</span>
            <input type="text" name="schedule_time" inputMode="numeric" value={time} onInput={(e) => setTime(e.currentTarget.value)} />
          </label>
          <label class="field">
            <span>Duration (minutes)</span>
            <input type="number" name="schedule_duration" min={1} max={1440} value={duration} onInput={(e) => setDuration(e.currentTarget.value)} />
          </label>
        </div>
        <fieldset>
          <legend>Days</legend>
          <div class="checks">
            {DAYS.map((d, i) => (
              <label class="check" key={d}>
                <input
                  type="checkbox"
                  name={`day-${i}`}
                  checked={days.includes(i)}
                  onChange={(e) =>
                    setDays(e.currentTarget.checked ? [...days, i].sort() : days.filter((x) => x !== i))
                  }
                />
                <span>{d}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <button type="submit" class="primary" disabled={act.busy}>
          Add schedule
        </button>
      </form>
    </Card>
  );
}

type ExerciseDraft = Pick<ExerciseStatus, 'enabled' | 'frequency_days' | 'start_time' | 'duration_minutes'>;

function ExerciseCard() {
  const ex = useLoad(() => api<ExerciseStatus>('/api/exercise'));
  const act = useAction();
  const [draft, setDraft] = useState<ExerciseDraft | null>(null);
  useEffect(() => {
    const d = ex.data;
    if (d) setDraft({ enabled: d.enabled, frequency_days: d.frequency_days, start_time: d.start_time, duration_minutes: d.duration_minutes });
  }, [ex.data]);

  const save = (e: Event) => {
    e.preventDefault();
    if (!draft) return;
    void act.run(async () => {
      await api('/api/exercise', { method: 'PUT', body: draft });
      ex.reload();
    }, 'Exercise schedule saved');
  };

  return (
    <Card title="Exercise">
      <Feedback note={act.note} onClose={act.clear} testid="exercise-feedback" />
      {ex.error ? <Banner>{ex.error}</Banner> : null}
      {ex.data ? (
        <dl class="kv" data-testid="exercise">
          <dt>Next exercise</dt>
          <dd>{ex.data.enabled ? at(ex.data.next_exercise_date) : 'disabled'}</dd>
          <dt>Last run</dt>
          <dd>{at(ex.data.last_run_at)}</dd>
          <dt>Last result</dt>
          <dd>{ex.data.last_result ?? '–'}</dd>
        </dl>
      ) : null}
      {draft ? (
        <form onSubmit={save}>
          <label class="check">
            <input
              type="checkbox"
              name="exercise_enabled"
              checked={draft.enabled}
              onChange={(e) => setDraft({ ...draft, enabled: e.currentTarget.checked })}
            />
            <span>Run the generator regularly to keep it healthy</span>
          </label>
          <div class="row">
            <label class="field">
              <span>Every (days)</span>
              <input
                type="number"
                name="frequency_days"
                min={1}
                max={365}
                value={draft.frequency_days}
                onInput={(e) => setDraft({ ...draft, frequency_days: Number(e.currentTarget.value) })}
              />
            </label>
            <label class="field">
              <span>At (HH:MM)</span>
              <input
                type="text"
                name="exercise_time"
                value={draft.start_time}
                onInput={(e) => setDraft({ ...draft, start_time: e.currentTarget.value })}
              />
            </label>
            <label class="field">
              <span>For (minutes)</span>
              <input
                type="number"
                name="exercise_duration"
                min={1}
                max={1440}
                value={draft.duration_minutes}
                onInput={(e) => setDraft({ ...draft, duration_minutes: Number(e.currentTarget.value) })}
              />
            </label>
          </div>
          <button type="submit" class="primary" disabled={act.busy}>
            Save exercise
          </button>
        </form>
      ) : null}
    </Card>
  );
}
