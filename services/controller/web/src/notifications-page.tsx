import { Banner, Card } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { Feedback, useAction, useLoad } from './feedback.js';

interface Channel {
  id: number;
  name: string;
  channel_type: string;
  config: Record<string, unknown>;
  enabled: boolean;
}
interface Group {
  id: number;
  name: string;
  description: string;
  channel_ids: number[];
  enabled: boolean;
}
interface EventSetting {
  event: string;
  configured: boolean;
  enabled: boolean;
  channel_ids: number[];
  group_ids: number[];
  title_template: string;
  body_template: string;
}
interface HistoryRecord {
  id: number;
  source: string;
  channel_name: string;
  title: string;
  attempt: number;
  status: string;
  error: string | null;
  created_at: string;
}
interface SendResult {
  results: { channel_id: number; status: string; error: string | null }[];
}

/** A starting config per channel type, with the field names the notifier expects. */
const CONFIG_TEMPLATES: Record<string, Record<string, unknown>> = {
  telegram: { bot_token: '', chat_id: '' },
  slack: { webhook_url: 'https://' },
  discord: { webhook_url: 'https://' },
  email: { smtp_host: '', smtp_port: 587, username: '', password: '', from_email: '', to_emails: [] },
  pushover: { user_key: '', api_token: '' },
  apprise: { urls: [] },
  webhook: { url: 'https://', headers: {}, method: 'POST' },
};

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

/** A refusal of every channel in a send shows as an error with the notifier's reasons. */
function checkSent(r: SendResult): void {
  const failed = r.results.filter((x) => x.status === 'failed');
  if (failed.length)
    throw new Error(failed.map((f) => `channel ${f.channel_id}: ${f.error ?? 'failed'}`).join('; '));
}

export function NotificationsPage() {
  const channels = useLoad(() => api<Channel[]>('/api/notifications/channels'));
  const groups = useLoad(() => api<Group[]>('/api/notifications/groups'));
  return (
    <>
      <ChannelsCard channels={channels} />
      <GroupsCard groups={groups} channels={channels.data ?? []} />
      <EventsCard channels={channels.data ?? []} groups={groups.data ?? []} />
      <HistoryCard />
    </>
  );
}

function ChannelsCard({ channels }: { channels: ReturnType<typeof useLoad<Channel[]>> }) {
  const act = useAction();
  const [name, setName] = useState('');
  const [type, setType] = useState('apprise');
  const [config, setConfig] = useState(JSON.stringify(CONFIG_TEMPLATES.apprise, null, 2));

  const create = (e: Event) => {
    e.preventDefault();
    void act
      .run(
        async () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(config);
          } catch {
            throw new Error('Config is not valid JSON');
          }
          const made = await api<{ default_for_events?: string[] }>('/api/notifications/channels', {
            body: { name: name.trim(), channel_type: type, config: parsed, enabled: true },
          });
          channels.reload();
          return made.default_for_events?.length ?? 0;
        },
        (defaults) =>
          defaults > 0
            ? `Channel added. As the first channel it now receives all ${defaults} events; change that per event under Event templates.`
            : 'Channel added',
      )
      .then((ok) => ok && setName(''));
  };
  const test = (c: Channel) =>
    void act.run(
      async () =>
        checkSent(await api<SendResult>(`/api/notifications/channels/${c.id}/test`, { method: 'POST' })),
      `Test sent to ${c.name}`,
    );
  const remove = (c: Channel) => {
    if (!confirm(`Delete the channel "${c.name}"?`)) return;
    void act.run(async () => {
      await api(`/api/notifications/channels/${c.id}`, { method: 'DELETE' });
      channels.reload();
    }, 'Channel deleted');
  };

  return (
    <Card title="Channels" wide>
      <Feedback note={act.note} onClose={act.clear} testid="channels-feedback" />
      {channels.error ? <Banner>{channels.error}</Banner> : null}
      {channels.data && channels.data.length === 0 ? (
        <p class="muted" data-testid="no-channels">
          No channel yet, so nothing is notified. The first channel you add receives every event.
        </p>
      ) : null}
      <div class="table-wrap">
        <table data-testid="channels">
          <thead>
            <tr>
              <th class="num">Id</th>
              <th>Name</th>
              <th>Type</th>
              <th>Enabled</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(channels.data ?? []).map((c) => (
              <tr key={c.id} class={c.enabled ? '' : 'row-off'}>
                <td class="num">{c.id}</td>
                <td>{c.name}</td>
                <td>{c.channel_type}</td>
                <td>{c.enabled ? 'yes' : 'no'}</td>
                <td>
                  <div class="row">
                    <button type="button" disabled={act.busy} onClick={() => test(c)}>
                      Test
                    </button>
                    <button type="button" disabled={act.busy} onClick={() => remove(c)}>
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form onSubmit={create}>
        <h2>New channel</h2>
        <div class="row">
          <label class="field">
            <span>Name</span>
            <input
              type="text"
              name="channel_name"
              maxLength={100}
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Type</span>
            <select
              name="channel_type"
              value={type}
              onChange={(e) => {
                const t = e.currentTarget.value;
                setType(t);
                setConfig(JSON.stringify(CONFIG_TEMPLATES[t] ?? {}, null, 2));
              }}
            >
              {Object.keys(CONFIG_TEMPLATES).map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
        </div>
        <label class="field">
          <span>Config (JSON)</span>
          <textarea
            name="channel_config"
            class="mono"
            rows={6}
            value={config}
            onInput={(e) => setConfig(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary" disabled={act.busy}>
          Add channel
        </button>
      </form>
    </Card>
  );
}

function IdChecks({
  label,
  items,
  selected,
  onChange,
  name,
}: {
  label: string;
  items: { id: number; name: string }[];
  selected: number[];
  onChange: (ids: number[]) => void;
  name: string;
}) {
  return (
    <fieldset>
      <legend>{label}</legend>
      {items.length === 0 ? <p class="muted">None yet.</p> : null}
      <div class="checks">
        {items.map((i) => (
          <label class="check" key={i.id}>
            <input
              type="checkbox"
              name={`${name}-${i.id}`}
              checked={selected.includes(i.id)}
              onChange={(e) =>
                onChange(e.currentTarget.checked ? [...selected, i.id] : selected.filter((x) => x !== i.id))
              }
            />
            <span>{i.name}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function GroupsCard({
  groups,
  channels,
}: {
  groups: ReturnType<typeof useLoad<Group[]>>;
  channels: Channel[];
}) {
  const act = useAction();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [ids, setIds] = useState<number[]>([]);
  const create = (e: Event) => {
    e.preventDefault();
    void act
      .run(async () => {
        await api('/api/notifications/groups', {
          body: { name: name.trim(), description, channel_ids: ids, enabled: true },
        });
        groups.reload();
      }, 'Group added')
      .then((ok) => {
        if (ok) {
          setName('');
          setDescription('');
          setIds([]);
        }
      });
  };
  const names = (ids: number[]) =>
    ids.map((i) => channels.find((c) => c.id === i)?.name ?? `#${i}`).join(', ');
  return (
    <Card title="Groups">
      <Feedback note={act.note} onClose={act.clear} testid="groups-feedback" />
      {groups.error ? <Banner>{groups.error}</Banner> : null}
      <ul>
        {(groups.data ?? []).map((g) => (
          <li key={g.id}>
            <strong>{g.name}</strong> {g.enabled ? '' : '(disabled)'} ·{' '}
            {names(g.channel_ids) || 'no channels'}
            {g.description ? <span class="muted"> · {g.description}</span> : null}
          </li>
        ))}
      </ul>
      <form onSubmit={create}>
        <label class="field">
          <span>Name</span>
          <input
            type="text"
            name="group_name"
            maxLength={100}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Description</span>
          <input
            type="text"
            name="group_description"
            maxLength={500}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        </label>
        <IdChecks label="Channels" name="group-channel" items={channels} selected={ids} onChange={setIds} />
        <button type="submit" class="primary" disabled={act.busy}>
          Add group
        </button>
      </form>
    </Card>
  );
}

function EventsCard({ channels, groups }: { channels: Channel[]; groups: Group[] }) {
  const list = useLoad(() => api<EventSetting[]>('/api/system-notifications'));
  const [event, setEvent] = useState<string>('');
  const current = list.data?.find((e) => e.event === event) ?? list.data?.[0] ?? null;
  return (
    <Card title="Event templates">
      {list.error ? <Banner>{list.error}</Banner> : null}
      {list.data ? (
        <label class="field">
          <span>Event</span>
          <select name="event" value={current?.event ?? ''} onChange={(e) => setEvent(e.currentTarget.value)}>
            {list.data.map((e) => (
              <option key={e.event} value={e.event}>
                {e.event}
                {e.configured ? '' : ' (default)'}
              </option>
            ))}
          </select>
        </label>
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
      <label class="check">
        <input
          type="checkbox"
          name="event_enabled"
          checked={d.enabled}
          onChange={(e) => setD({ ...d, enabled: e.currentTarget.checked })}
        />
        <span>Send on {d.event}</span>
      </label>
      <IdChecks
        label="Channels"
        name="event-channel"
        items={channels}
        selected={d.channel_ids}
        onChange={(ids) => setD({ ...d, channel_ids: ids })}
      />
      <IdChecks
        label="Groups"
        name="event-group"
        items={groups}
        selected={d.group_ids}
        onChange={(ids) => setD({ ...d, group_ids: ids })}
      />
      <label class="field">
        <span>Title template</span>
        <input
          type="text"
          name="title_template"
          maxLength={200}
          value={d.title_template}
          onInput={(e) => setD({ ...d, title_template: e.currentTarget.value })}
        />
      </label>
      <label class="field">
        <span>
          Body template ({'{{runtime}}'}, {'{{reason}}'}, {'{{fuel_gallons}}'}, {'{{timestamp}}'}, …)
        </span>
        <textarea
          name="body_template"
          maxLength={4000}
          value={d.body_template}
          onInput={(e) => setD({ ...d, body_template: e.currentTarget.value })}
        />
      </label>
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

function HistoryCard() {
  const h = useLoad(() => api<HistoryRecord[]>('/api/notifications/history?limit=50'));
  return (
    <Card title="Notification history" wide>
      {h.error ? <Banner>{h.error}</Banner> : null}
      <div class="table-wrap">
        <table data-testid="notification-history">
          <thead>
            <tr>
              <th>Time</th>
              <th>Source</th>
              <th>Channel</th>
              <th>Title</th>
              <th class="num">Attempt</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {(h.data ?? []).map((r) => (
              <tr key={r.id}>
                <td>{new Date(r.created_at).toLocaleString()}</td>
                <td>{r.source}</td>
                <td>{r.channel_name}</td>
                <td>{r.title}</td>
                <td class="num">{r.attempt}</td>
                <td class={r.status === 'failed' ? 'bad' : ''}>
                  {r.error ? `${r.status}: ${r.error}` : r.status}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="actions">
        <button type="button" onClick={h.reload}>
          Refresh
        </button>
      </div>
    </Card>
  );
}
