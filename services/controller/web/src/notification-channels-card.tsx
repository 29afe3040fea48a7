import { Banner, Card } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { DataTable } from './data-table.js';
import { Feedback } from './feedback.js';
import { InputField, SelectField, TextAreaField } from './fields.js';
import { type Channel, checkSent, type SendResult } from './notifications.js';
import { RecordActions } from './record-actions.js';
import type { Records } from './use-records.js';

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
const TYPES = Object.keys(CONFIG_TEMPLATES).map((t) => ({ value: t, label: t }));
const template = (type: string) => JSON.stringify(CONFIG_TEMPLATES[type] ?? {}, null, 2);

export function NotificationChannelsCard({ channels }: { channels: Records<Channel> }) {
  const { list, act } = channels;
  const [name, setName] = useState('');
  const [type, setType] = useState('apprise');
  const [config, setConfig] = useState(template('apprise'));

  const create = (e: Event) => {
    e.preventDefault();
    void channels
      .change(
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

  return (
    <Card title="Channels" wide>
      <Feedback note={act.note} onClose={act.clear} testid="channels-feedback" />
      {list.error ? <Banner>{list.error}</Banner> : null}
      {list.data && list.data.length === 0 ? (
        <p class="muted" data-testid="no-channels">
          No channel yet, so nothing is notified. The first channel you add receives every event.
        </p>
      ) : null}
      <DataTable
        testid="channels"
        label="Notification channels"
        head={
          <>
            <th class="num">Id</th>
            <th>Name</th>
            <th>Type</th>
            <th>Enabled</th>
            <th />
          </>
        }
      >
        {(list.data ?? []).map((c) => (
          <tr key={c.id} class={c.enabled ? '' : 'row-off'}>
            <td class="num">{c.id}</td>
            <td>{c.name}</td>
            <td>{c.channel_type}</td>
            <td>{c.enabled ? 'yes' : 'no'}</td>
            <RecordActions
              records={channels}
              record={c}
              confirmDelete={`Delete the channel "${c.name}"?`}
              deleted="Channel deleted"
            >
              <button type="button" disabled={act.busy} onClick={() => test(c)}>
                Test
              </button>
            </RecordActions>
          </tr>
        ))}
      </DataTable>
      <form onSubmit={create}>
        <h2>New channel</h2>
        <div class="row">
          <InputField
            label="Name"
            type="text"
            name="channel_name"
            maxLength={100}
            value={name}
            onValue={setName}
          />
          <SelectField
            label="Type"
            name="channel_type"
            value={type}
            choices={TYPES}
            onValue={(t) => {
              setType(t);
              setConfig(template(t));
            }}
          />
        </div>
        <TextAreaField
          label="Config (JSON)"
          name="channel_config"
          class="mono"
          rows={6}
          value={config}
          onValue={setConfig}
        />
        <button type="submit" class="primary" disabled={act.busy}>
          Add channel
        </button>
      </form>
    </Card>
  );
}
