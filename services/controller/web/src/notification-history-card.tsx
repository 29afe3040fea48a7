import { Banner, Card } from '@outpost/ui';
import { api } from './api.js';
import { DataTable } from './data-table.js';
import { deliveryReason } from './delivery-reason.js';
import { useLoad } from './feedback.js';

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

export function NotificationHistoryCard() {
  const h = useLoad(() => api<HistoryRecord[]>('/api/notifications/history?limit=50'));
  return (
    <Card title="Notification history" wide>
      {h.error ? <Banner>{h.error}</Banner> : null}
      <DataTable
        testid="notification-history"
        label="Notification deliveries"
        head={
          <>
            <th>Time</th>
            <th>Source</th>
            <th>Channel</th>
            <th>Title</th>
            <th class="num">Attempt</th>
            <th>Status</th>
          </>
        }
      >
        {(h.data ?? []).map((r) => {
          const why = deliveryReason(r.status, r.error, 'notifier');
          return (
            <tr key={r.id}>
              <td>{new Date(r.created_at).toLocaleString()}</td>
              <td>{r.source}</td>
              <td>{r.channel_name}</td>
              <td>{r.title}</td>
              <td class="num">{r.attempt}</td>
              <td class={why.bad ? 'reason bad' : 'reason'}>
                {r.error ? `${why.status} – ${why.text}` : why.status}
              </td>
            </tr>
          );
        })}
      </DataTable>
      <div class="actions">
        <button type="button" onClick={h.reload}>
          Refresh
        </button>
      </div>
    </Card>
  );
}
