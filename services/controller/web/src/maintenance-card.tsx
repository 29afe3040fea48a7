import { Banner, Card, toneClass } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { DataTable } from './data-table.js';
import { Feedback, useAction, useLoad } from './feedback.js';
import { InputField } from './fields.js';
import type { MaintenanceItem } from './types.js';

const day = (s: number | null) => (s ? new Date(s * 1000).toLocaleDateString() : '–');

// A due service needs a look but is no fault: amber, never red.
const STATUS_CLASS: Record<MaintenanceItem['status'], string> = {
  ok: toneClass('ok'),
  upcoming: toneClass('idle'),
  due: toneClass('due_soon'),
};
const STATUS_TEXT: Record<MaintenanceItem['status'], string> = {
  ok: 'ok',
  upcoming: 'due soon',
  due: 'due',
};

function interval(i: MaintenanceItem): string {
  const parts = [
    i.interval_hours !== null ? `${i.interval_hours} h` : null,
    i.interval_months !== null ? `${i.interval_months} months` : null,
  ].filter(Boolean);
  return parts.join(' or ');
}

/** Service reminders: what is due or soon due, marking an item done, and adding one. */
export function MaintenanceCard({ onChange }: { onChange: () => void }) {
  const items = useLoad(() => api<MaintenanceItem[]>('/api/maintenance/items'));
  const action = useAction();
  const [name, setName] = useState('');
  const [hours, setHours] = useState('');
  const [months, setMonths] = useState('');
  const changed = () => {
    items.reload();
    onChange();
  };
  const done = (item: MaintenanceItem) =>
    action
      .run(() => api(`/api/maintenance/items/${item.id}/done`, { body: {} }), `${item.name} marked done`)
      .then(changed);
  const add = async (e: Event) => {
    e.preventDefault();
    const body = {
      name,
      interval_hours: hours ? Number(hours) : null,
      interval_months: months ? Number(months) : null,
    };
    if (await action.run(() => api('/api/maintenance/items', { body }), `${name} added`)) {
      setName('');
      setHours('');
      setMonths('');
    }
    changed();
  };
  return (
    <Card title="Maintenance" wide>
      <Feedback note={action.note} onClose={action.clear} testid="maintenance-feedback" />
      {items.error ? <Banner>{items.error}</Banner> : null}
      {items.data ? (
        <DataTable
          testid="maintenance"
          label="Maintenance items"
          head={
            <>
              <th>Item</th>
              <th>Every</th>
              <th class="num">Due at (h)</th>
              <th>Due by</th>
              <th>Status</th>
              <th>Last done</th>
              <th />
            </>
          }
        >
          {items.data.map((i) => (
            <tr key={i.id} data-testid={`maintenance-${i.id}`}>
              <td>{i.name}</td>
              <td>{interval(i)}</td>
              <td class="num">{i.due_engine_hours ?? '–'}</td>
              <td>{day(i.due_at)}</td>
              <td class={STATUS_CLASS[i.status]} data-testid="maintenance-status">
                {STATUS_TEXT[i.status]}
              </td>
              <td>
                {day(i.last_done_at)} · {i.last_done_engine_hours} h
              </td>
              <td>
                <button type="button" disabled={action.busy} onClick={() => done(i)}>
                  Done
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <form class="row" onSubmit={add}>
        <InputField label="New item" name="maintenance_name" value={name} onValue={setName} />
        <InputField
          label="Every (engine hours)"
          type="number"
          name="maintenance_hours"
          min={0}
          step="any"
          value={hours}
          onValue={setHours}
        />
        <InputField
          label="Every (months)"
          type="number"
          name="maintenance_months"
          min={1}
          value={months}
          onValue={setMonths}
        />
        <button type="submit" class="primary" disabled={action.busy}>
          Add item
        </button>
      </form>
    </Card>
  );
}
