import { Banner, Card } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { DataTable } from './data-table.js';
import { Feedback } from './feedback.js';
import { CheckField, CheckList, InputField } from './fields.js';
import { RecordActions } from './record-actions.js';
import { at } from './time.js';
import type { ExerciseStatus, Schedule } from './types.js';
import { useDraft } from './use-draft.js';
import { useRecords } from './use-records.js';

/** days_of_week follow cron: 0 = Sunday … 6 = Saturday. */
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const DAY_ITEMS = DAYS.map((name, id) => ({ id, name }));

export function SchedulesPage() {
  return (
    <>
      <SchedulesCard />
      <ExerciseCard />
    </>
  );
}

function SchedulesCard() {
  const schedules = useRecords<Schedule>('/api/schedules');
  const { list, act } = schedules;
  const [name, setName] = useState('');
  const [days, setDays] = useState<number[]>([]);
  const [time, setTime] = useState('06:00');
  const [duration, setDuration] = useState('30');

  const create = (e: Event) => {
    e.preventDefault();
    void schedules
      .change(
        () =>
          api('/api/schedules', {
            body: {
              name: name.trim(),
              days_of_week: days,
              start_time: time,
              duration_minutes: Number(duration),
              enabled: true,
            },
          }),
        'Schedule created',
      )
      .then((ok) => {
        if (ok) {
          setName('');
          setDays([]);
        }
      });
  };

  return (
    <Card title="Schedules" wide>
      <Feedback note={act.note} onClose={act.clear} testid="schedules-feedback" />
      {list.error ? <Banner>{list.error}</Banner> : null}
      <DataTable
        testid="schedules"
        label="Schedules"
        head={
          <>
            <th>Name</th>
            <th>Days</th>
            <th>Start</th>
            <th class="num">Minutes</th>
            <th>Next run</th>
            <th>Last result</th>
            <th />
          </>
        }
      >
        {(list.data ?? []).map((s) => (
          <tr key={s.id} class={s.enabled ? '' : 'row-off'}>
            <td>{s.name}</td>
            <td>{s.days_of_week.map((d) => DAYS[d]).join(' ')}</td>
            <td>{s.start_time}</td>
            <td class="num">{s.duration_minutes}</td>
            <td>{s.enabled ? at(s.next_execution) : 'disabled'}</td>
            <td>{s.last_result ?? '–'}</td>
            <RecordActions
              records={schedules}
              record={s}
              toggled={s.enabled ? `Schedule "${s.name}" disabled` : `Schedule "${s.name}" enabled`}
              confirmDelete={`Delete the schedule "${s.name}"?`}
              deleted="Schedule deleted"
            />
          </tr>
        ))}
      </DataTable>
      {list.data && list.data.length === 0 ? <p class="muted">No schedules yet.</p> : null}
      <form onSubmit={create}>
        <h2>New schedule</h2>
        <div class="row">
          <InputField
            label="Name"
            type="text"
            name="schedule_name"
            maxLength={100}
            value={name}
            onValue={setName}
          />
          <InputField
            label="Start (HH:MM, controller time)"
            type="text"
            name="schedule_time"
            inputMode="numeric"
            value={time}
            onValue={setTime}
          />
          <InputField
            label="Duration (minutes)"
            type="number"
            name="schedule_duration"
            min={1}
            max={1440}
            value={duration}
            onValue={setDuration}
          />
        </div>
        <CheckList
          label="Days"
          name="day"
          items={DAY_ITEMS}
          selected={days}
          onChange={(ids) => setDays(ids.sort())}
        />
        <button type="submit" class="primary" disabled={act.busy}>
          Add schedule
        </button>
      </form>
    </Card>
  );
}

type ExerciseDraft = Pick<
  ExerciseStatus,
  | 'enabled'
  | 'frequency_days'
  | 'start_time'
  | 'duration_minutes'
  | 'until_battery_full'
  | 'battery_full_soc'
  | 'max_duration_minutes'
>;

function ExerciseCard() {
  const {
    loaded: ex,
    act,
    draft,
    setDraft,
    save,
  } = useDraft({
    load: () => api<ExerciseStatus>('/api/exercise'),
    draftOf: (d): ExerciseDraft => ({
      enabled: d.enabled,
      frequency_days: d.frequency_days,
      start_time: d.start_time,
      duration_minutes: d.duration_minutes,
      until_battery_full: d.until_battery_full,
      battery_full_soc: d.battery_full_soc,
      max_duration_minutes: d.max_duration_minutes,
    }),
    store: (draft) => api('/api/exercise', { method: 'PUT', body: draft }),
    saved: 'Exercise schedule saved',
  });

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
          <CheckField
            label="Run the generator regularly to keep it healthy"
            name="exercise_enabled"
            checked={draft.enabled}
            onChange={(enabled) => setDraft({ ...draft, enabled })}
          />
          <div class="row">
            <InputField
              label="Every (days)"
              type="number"
              name="frequency_days"
              min={1}
              max={365}
              value={draft.frequency_days}
              onValue={(v) => setDraft({ ...draft, frequency_days: Number(v) })}
            />
            <InputField
              label="At (HH:MM)"
              type="text"
              name="exercise_time"
              value={draft.start_time}
              onValue={(v) => setDraft({ ...draft, start_time: v })}
            />
            <InputField
              label="For (minutes)"
              type="number"
              name="exercise_duration"
              min={1}
              max={1440}
              value={draft.duration_minutes}
              onValue={(v) => setDraft({ ...draft, duration_minutes: Number(v) })}
            />
          </div>
          <CheckField
            label="Then run on until the battery is full (reads the soc start-condition source)"
            name="exercise_until_full"
            checked={draft.until_battery_full}
            onChange={(until_battery_full) => setDraft({ ...draft, until_battery_full })}
          />
          <div class="row">
            <InputField
              label="Full at (% soc)"
              type="number"
              name="exercise_full_soc"
              min={1}
              max={100}
              value={draft.battery_full_soc}
              onValue={(v) => setDraft({ ...draft, battery_full_soc: Number(v) })}
            />
            <InputField
              label="At most (minutes)"
              type="number"
              name="exercise_max_duration"
              min={1}
              max={1440}
              value={draft.max_duration_minutes}
              onValue={(v) => setDraft({ ...draft, max_duration_minutes: Number(v) })}
            />
          </div>
          <button type="submit" class="primary" disabled={act.busy}>
            Save exercise
          </button>
        </form>
      ) : null}
    </Card>
  );
}
