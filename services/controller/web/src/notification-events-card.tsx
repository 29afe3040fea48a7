import { Banner, Card } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { Feedback, useAction, useLoad } from './feedback.js';
import { CheckField, CheckList, InputField, SelectField, TextAreaField } from './fields.js';
import { type Channel, checkSent, type EventSetting, type Group, type SendResult } from './notifications.js';

/** Sample values for a template preview and its test message. */
const SAMPLE: Record<string, string> = {
  run_id: '42',
  start_time: new Date().toLocaleString(),
  stop_time: new Date().toLocaleString(),
  runtime: '1 h 5 min',
  reason: 'manual',
  fuel_gallons: '0.85',
  fuel_type: 'lpg',
  timestamp: new Date().toISOString(),
  status: 'test',
  details: 'Test from the generator console',
};
const render = (t: string) => t.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, k: string) => SAMPLE[k] ?? m);

/** Per event: whether it is sent, to which channels and groups, and with what title and body. */
export function NotificationEventsCard({ channels, groups }: { channels: Channel[]; groups: Group[] }) {
  const list = useLoad(() => api<EventSetting[]>('/api/system-notifications'));
  const [event, setEvent] = useState<string>('');
  const current = list.data?.find((e) => e.event === event) ?? list.data?.[0] ?? null;
  return (
    <Card title="Event templates">
      {list.error ? <Banner>{list.error}</Banner> : null}
      {list.data ? (
        <SelectField
          label="Event"
          name="event"
          value={current?.event ?? ''}
          choices={list.data.map((e) => ({
            value: e.event,
            label: `${e.event}${e.configured ? '' : ' (default)'}`,
          }))}
          onValue={setEvent}
        />
      ) : null}
      {current ? (
        <EventForm
          key={current.event}
          setting={current}
          channels={channels}
          groups={groups}
          onSaved={list.reload}
        />
      ) : null}
    </Card>
  );
}

function EventForm({
  setting,
  channels,
  groups,
  onSaved,
}: {
  setting: EventSetting;
  channels: Channel[];
  groups: Group[];
  onSaved: () => void;
}) {
  const act = useAction();
  const [d, setD] = useState(setting);
  useEffect(() => setD(setting), [setting]);
  const body = () => ({
    enabled: d.enabled,
    channel_ids: d.channel_ids,
    group_ids: d.group_ids,
    title_template: d.title_template,
    body_template: d.body_template,
  });
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      await api(`/api/system-notifications/${encodeURIComponent(d.event)}`, { method: 'PUT', body: body() });
      onSaved();
    }, `Settings for ${d.event} saved`);
  };
  // A test goes to the chosen channels and to every channel of the chosen groups, with sample values.
  const test = () =>
    void act.run(async () => {
      const ids = new Set(d.channel_ids);
      for (const g of groups) if (d.group_ids.includes(g.id)) for (const c of g.channel_ids) ids.add(c);
      if (ids.size === 0) throw new Error('Choose at least one channel or group to test');
      checkSent(
        await api<SendResult>('/api/notifications/send', {
          body: {
            title: render(d.title_template) || d.event,
            body: render(d.body_template) || d.event,
            channel_ids: [...ids],
          },
        }),
      );
    }, 'Test message sent');
  return (
    <form onSubmit={save}>
      <Feedback note={act.note} onClose={act.clear} testid="event-feedback" />
      <CheckField
        label={`Send on ${d.event}`}
        name="event_enabled"
        checked={d.enabled}
        onChange={(enabled) => setD({ ...d, enabled })}
      />
      <CheckList
        label="Channels"
        name="event-channel"
        items={channels}
        selected={d.channel_ids}
        onChange={(ids) => setD({ ...d, channel_ids: ids })}
      />
      <CheckList
        label="Groups"
        name="event-group"
        items={groups}
        selected={d.group_ids}
        onChange={(ids) => setD({ ...d, group_ids: ids })}
      />
      <InputField
        label="Title template"
        type="text"
        name="title_template"
        maxLength={200}
        value={d.title_template}
        onValue={(v) => setD({ ...d, title_template: v })}
      />
      <TextAreaField
        label="Body template ({{runtime}}, {{reason}}, {{fuel_gallons}}, {{timestamp}}, …)"
        name="body_template"
        maxLength={4000}
        value={d.body_template}
        onValue={(v) => setD({ ...d, body_template: v })}
      />
      <p class="muted">
        Preview: {render(d.title_template)} — {render(d.body_template)}
      </p>
      <div class="actions">
        <button type="submit" class="primary" disabled={act.busy}>
          Save
        </button>
        <button type="button" disabled={act.busy} onClick={test}>
          Send test
        </button>
      </div>
    </form>
  );
}
