import { Banner, Card } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { Feedback } from './feedback.js';
import { CheckList, InputField } from './fields.js';
import type { Channel, Group } from './notifications.js';
import type { Records } from './use-records.js';

export function NotificationGroupsCard({
  groups,
  channels,
}: {
  groups: Records<Group>;
  channels: Channel[];
}) {
  const { list, act } = groups;
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [ids, setIds] = useState<number[]>([]);
  const create = (e: Event) => {
    e.preventDefault();
    void groups
      .change(
        () =>
          api('/api/notifications/groups', {
            body: { name: name.trim(), description, channel_ids: ids, enabled: true },
          }),
        'Group added',
      )
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
      {list.error ? <Banner>{list.error}</Banner> : null}
      <ul>
        {(list.data ?? []).map((g) => (
          <li key={g.id}>
            <strong>{g.name}</strong> {g.enabled ? '' : '(disabled)'} ·{' '}
            {names(g.channel_ids) || 'no channels'}
            {g.description ? <span class="muted"> · {g.description}</span> : null}
          </li>
        ))}
      </ul>
      <form onSubmit={create}>
        <InputField
          label="Name"
          type="text"
          name="group_name"
          maxLength={100}
          value={name}
          onValue={setName}
        />
        <InputField
          label="Description"
          type="text"
          name="group_description"
          maxLength={500}
          value={description}
          onValue={setDescription}
        />
        <CheckList label="Channels" name="group-channel" items={channels} selected={ids} onChange={setIds} />
        <button type="submit" class="primary" disabled={act.busy}>
          Add group
        </button>
      </form>
    </Card>
  );
}
