import { Banner, Card } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { DataTable } from './data-table.js';
import { deliveryReason } from './delivery-reason.js';
import { Feedback, useLoad } from './feedback.js';
import { InputField } from './fields.js';
import { RecordActions } from './record-actions.js';
import { at } from './time.js';
import type { Webhook } from './types.js';
import { useRecords } from './use-records.js';

interface Delivery {
  id: number;
  event: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
}

export function WebhooksPage() {
  const webhooks = useRecords<Webhook>('/api/webhooks');
  const { list, act } = webhooks;
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [events, setEvents] = useState('*');
  const [created, setCreated] = useState<Webhook | null>(null);
  const [open, setOpen] = useState<number | null>(null);

  const create = (e: Event) => {
    e.preventDefault();
    void webhooks
      .change(async () => {
        const w = await api<Webhook>('/api/webhooks', {
          body: {
            url: url.trim(),
            ...(secret ? { secret } : {}),
            events: events
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean),
            enabled: true,
          },
        });
        setCreated(w.secret ? w : null);
      }, 'Webhook added')
      .then((ok) => {
        if (ok) {
          setUrl('');
          setSecret('');
        }
      });
  };
  const test = () =>
    void act.run(async () => {
      const r = await api<{
        sent: number;
        results: { url: string; ok: boolean; status: number | null; error: string | null }[];
      }>('/api/webhooks/test', { method: 'POST' });
      const failed = r.results.filter((x) => !x.ok);
      if (failed.length) throw new Error(failed.map((f) => `${f.url}: ${f.error ?? f.status}`).join('; '));
    }, 'Test event delivered to every enabled webhook');

  return (
    <>
      <Card title="Webhooks" wide>
        <Feedback note={act.note} onClose={act.clear} testid="webhooks-feedback" />
        {created?.secret ? (
          <Banner kind="info" onClose={() => setCreated(null)}>
            Signing secret for {created.url} (shown once): <code class="mono">{created.secret}</code>
          </Banner>
        ) : null}
        {list.error ? <Banner>{list.error}</Banner> : null}
        <DataTable
          testid="webhooks"
          label="Webhooks"
          head={
            <>
              <th>URL</th>
              <th>Events</th>
              <th>Added</th>
              <th />
            </>
          }
        >
          {(list.data ?? []).map((w) => (
            <tr key={w.id} class={w.enabled ? '' : 'row-off'}>
              <td>{w.url}</td>
              <td>{w.events.join(', ')}</td>
              <td>{at(w.created_at)}</td>
              <RecordActions
                records={webhooks}
                record={w}
                toggled={w.enabled ? 'Webhook disabled' : 'Webhook enabled'}
                confirmDelete={`Delete the webhook to ${w.url}?`}
                deleted="Webhook deleted"
              >
                <button type="button" onClick={() => setOpen(open === w.id ? null : w.id)}>
                  Deliveries
                </button>
              </RecordActions>
            </tr>
          ))}
        </DataTable>
        {list.data && list.data.length === 0 ? <p class="muted">No webhooks yet.</p> : null}
        <div class="actions">
          <button type="button" disabled={act.busy} onClick={test}>
            Send test event
          </button>
        </div>
        <form onSubmit={create}>
          <h2>New webhook</h2>
          <div class="row">
            <InputField
              label="URL (http or https)"
              type="text"
              name="webhook_url"
              inputMode="url"
              value={url}
              onValue={setUrl}
            />
            <InputField
              label="Secret (optional, 8+ characters; generated when empty)"
              type="password"
              name="webhook_secret"
              autocomplete="new-password"
              value={secret}
              onValue={setSecret}
            />
            <InputField
              label="Events (comma-separated; *, exact, or prefix*)"
              type="text"
              name="webhook_events"
              value={events}
              onValue={setEvents}
            />
          </div>
          <button type="submit" class="primary" disabled={act.busy}>
            Add webhook
          </button>
        </form>
      </Card>
      {open !== null ? <Deliveries key={open} id={open} /> : null}
    </>
  );
}

function Deliveries({ id }: { id: number }) {
  const list = useLoad(() => api<Delivery[]>(`/api/webhooks/${id}/deliveries?limit=50`));
  return (
    <Card title={`Deliveries of webhook ${id}`} wide>
      {list.error ? <Banner>{list.error}</Banner> : null}
      <DataTable
        testid="webhook-deliveries"
        label="Webhook deliveries"
        head={
          <>
            <th>Created</th>
            <th>Event</th>
            <th>Status</th>
            <th class="num">Attempts</th>
            <th>Last answer</th>
          </>
        }
      >
        {(list.data ?? []).map((d) => {
          const r = deliveryReason(d.status, d.last_error, 'controller', d.last_status_code);
          return (
            <tr key={d.id}>
              <td>{at(d.created_at)}</td>
              <td>{d.event}</td>
              <td class={r.bad ? 'bad' : ''}>{r.status}</td>
              <td class="num">{d.attempts}</td>
              <td class={r.bad ? 'reason bad' : 'reason'}>{r.text}</td>
            </tr>
          );
        })}
      </DataTable>
      {list.data && list.data.length === 0 ? <p class="muted">No deliveries yet.</p> : null}
      <div class="actions">
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </div>
    </Card>
  );
}
