import { Banner, Card } from '@outpost/ui';
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, relaynodeAdmin } from './api.js';
import { Feedback, useAction, useLoad } from './feedback.js';
import { WifiCard } from './relaynode-wifi.js';

interface NodeStatus {
  relay?: {
    relay_on?: boolean;
    armed?: boolean;
    failsafe_triggered?: boolean;
    physical_safety_engaged?: boolean;
  };
  failsafe?: Record<string, unknown>;
}
interface RebootSchedule {
  enabled: boolean;
  day: string;
  hour: number;
  minute: number;
}
interface NodeNotifications {
  notifier_urls: string[];
  source: 'settings' | 'environment';
  failsafe_cooldown_minutes: number;
  restored_cooldown_minutes: number;
}

const REBOOT_DAYS = ['daily', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const FAILSAFE_FIELDS = [
  'running',
  'last_heartbeat',
  'seconds_since_heartbeat',
  'heartbeat_count',
  'failsafe_triggered',
  'timeout_seconds',
  'heartbeat_interval',
  'timeout_source',
];

function show(v: unknown): string {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Nested system info as dotted keys, so any shape the node reports can be read on a phone. */
function flatten(obj: unknown, prefix = '', out: [string, string][] = [], depth = 0): [string, string][] {
  if (obj && typeof obj === 'object' && !Array.isArray(obj) && depth < 3) {
    for (const [k, v] of Object.entries(obj)) flatten(v, prefix ? `${prefix}.${k}` : k, out, depth + 1);
  } else out.push([prefix, show(obj)]);
  return out;
}

export function RelaynodePage() {
  const st = useLoad(() => api<NodeStatus>('/api/relaynode/status'));
  useEffect(() => {
    const t = setInterval(st.reload, 5000);
    return () => clearInterval(t);
  }, [st.reload]);
  return (
    <>
      <NodeStatusCard st={st} />
      <PowerCard relayOn={st.data?.relay?.relay_on === true} />
      <WifiCard />
      <RebootCard />
      <NotifierCard />
      <SystemCard />
    </>
  );
}

type Loaded<T> = ReturnType<typeof useLoad<T>>;

function NodeStatusCard({ st }: { st: Loaded<NodeStatus> }) {
  const r = st.data?.relay;
  return (
    <Card title="Relay node">
      {st.error ? <Banner>{st.error}</Banner> : null}
      {r ? (
        <dl class="kv" data-testid="node-status">
          <dt>Relay</dt>
          <dd>{r.relay_on ? 'ON' : 'OFF'}</dd>
          <dt>Armed</dt>
          <dd>{show(r.armed)}</dd>
          <dt>EPO engaged</dt>
          <dd>{show(r.physical_safety_engaged)}</dd>
        </dl>
      ) : null}
      {st.data?.failsafe ? (
        <>
          <h2>Failsafe</h2>
          <dl class="kv" data-testid="failsafe">
            {FAILSAFE_FIELDS.map((k) => (
              <Fragment key={k}>
                <dt>{k}</dt>
                <dd>
                  {k === 'last_heartbeat' && typeof st.data?.failsafe?.[k] === 'number'
                    ? new Date((st.data.failsafe[k] as number) * 1000).toLocaleString()
                    : show(st.data?.failsafe?.[k])}
                </dd>
              </Fragment>
            ))}
          </dl>
        </>
      ) : null}
    </Card>
  );
}

const POWER = {
  reboot: { label: 'Reboot relay node', ask: 'Reboot the relay node now?', done: 'Relay node rebooting' },
  shutdown: {
    label: 'Shut down relay node',
    ask: 'Shut the relay node down now? It stays off until its power is cycled on site.',
    done: 'Relay node shutting down',
  },
} as const;

/**
 * Reboot and shutdown, each behind a confirmation. The node refuses both while its relay is ON; the
 * buttons say so as soon as the status shows it, and the node's own refusal is shown if it comes first.
 */
function PowerCard({ relayOn }: { relayOn: boolean }) {
  const act = useAction();
  const run = (action: keyof typeof POWER) => {
    if (!confirm(POWER[action].ask)) return;
    void act.run(() => relaynodeAdmin.power(action), POWER[action].done);
  };
  return (
    <Card title="Relay node power">
      <Feedback note={act.note} onClose={act.clear} testid="power-feedback" />
      {relayOn ? (
        <div data-testid="power-refused">
          <Banner kind="info">
            The relay is ON (generator running): the relay node refuses to reboot or shut down until it is
            OFF.
          </Banner>
        </div>
      ) : null}
      <div class="actions">
        {(['reboot', 'shutdown'] as const).map((a) => (
          <button key={a} type="button" disabled={act.busy || relayOn} onClick={() => run(a)}>
            {POWER[a].label}
          </button>
        ))}
      </div>
    </Card>
  );
}

function RebootCard() {
  const cur = useLoad(() => api<RebootSchedule>('/api/relaynode/reboot-schedule'));
  const act = useAction();
  const [draft, setDraft] = useState<RebootSchedule>({ enabled: false, day: 'sunday', hour: 3, minute: 0 });
  useEffect(() => {
    if (cur.data)
      setDraft({
        enabled: cur.data.enabled,
        day: cur.data.day,
        hour: cur.data.hour,
        minute: cur.data.minute,
      });
  }, [cur.data]);
  const save = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      await api('/api/relaynode/reboot-schedule', { body: draft });
      cur.reload();
    }, 'Reboot schedule saved on the relay node');
  };
  return (
    <Card title="Reboot schedule">
      <Feedback note={act.note} onClose={act.clear} testid="reboot-feedback" />
      {cur.error ? <Banner>{cur.error}</Banner> : null}
      <form onSubmit={save}>
        <label class="check">
          <input
            type="checkbox"
            name="reboot_enabled"
            checked={draft.enabled}
            onChange={(e) => setDraft({ ...draft, enabled: e.currentTarget.checked })}
          />
          <span>Reboot the relay node on a schedule (skipped while the relay is ON)</span>
        </label>
        <div class="row">
          <label class="field">
            <span>Day</span>
            <select
              name="reboot_day"
              value={draft.day}
              onChange={(e) => setDraft({ ...draft, day: e.currentTarget.value })}
            >
              {REBOOT_DAYS.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Hour (0–23)</span>
            <input
              type="number"
              name="reboot_hour"
              min={0}
              max={23}
              value={draft.hour}
              onInput={(e) => setDraft({ ...draft, hour: Number(e.currentTarget.value) })}
            />
          </label>
          <label class="field">
            <span>Minute (0–59)</span>
            <input
              type="number"
              name="reboot_minute"
              min={0}
              max={59}
              value={draft.minute}
              onInput={(e) => setDraft({ ...draft, minute: Number(e.currentTarget.value) })}
            />
          </label>
        </div>
        <button type="submit" class="primary" disabled={act.busy}>
          Save reboot schedule
        </button>
      </form>
    </Card>
  );
}

function NotifierCard() {
  const cur = useLoad(() => api<NodeNotifications>('/api/relaynode/notifications'));
  const act = useAction();
  const [urls, setUrls] = useState('');
  const [failsafe, setFailsafe] = useState('');
  const [restored, setRestored] = useState('');
  useEffect(() => {
    const d = cur.data;
    if (!d) return;
    setFailsafe(String(d.failsafe_cooldown_minutes));
    setRestored(String(d.restored_cooldown_minutes));
  }, [cur.data]);
  const saveUrls = (e: Event) => {
    e.preventDefault();
    const list = urls
      .split('\n')
      .map((u) => u.trim())
      .filter(Boolean);
    void act
      .run(async () => {
        await api('/api/relaynode/notifications', { body: { notifier_urls: list } });
        cur.reload();
      }, 'Notifier URLs saved on the relay node')
      .then((ok) => ok && setUrls(''));
  };
  const saveCooldowns = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      await api('/api/relaynode/notifications/settings', {
        body: { failsafe_cooldown_minutes: Number(failsafe), restored_cooldown_minutes: Number(restored) },
      });
      cur.reload();
    }, 'Cooldowns saved');
  };
  const test = () =>
    void act.run(
      () => api('/api/relaynode/notifications/test', { method: 'POST' }),
      'Test notification sent by the relay node',
    );
  return (
    <Card title="Relay node notifications">
      <Feedback note={act.note} onClose={act.clear} testid="node-notify-feedback" />
      {cur.error ? <Banner>{cur.error}</Banner> : null}
      {cur.data ? (
        <>
          <p class="muted">
            {cur.data.notifier_urls.length} URL(s) configured (from {cur.data.source}; secrets hidden):
          </p>
          <ul>
            {cur.data.notifier_urls.map((u) => (
              <li key={u} class="mono">
                {u}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <form onSubmit={saveUrls}>
        <label class="field">
          <span>Notifier URLs, one per line (replaces the list)</span>
          <textarea name="notifier_urls" value={urls} onInput={(e) => setUrls(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={act.busy}>
          Save URLs
        </button>
      </form>
      <form onSubmit={saveCooldowns}>
        <div class="row">
          <label class="field">
            <span>Failsafe cooldown (minutes)</span>
            <input
              type="number"
              name="failsafe_cooldown"
              min={0}
              max={10080}
              value={failsafe}
              onInput={(e) => setFailsafe(e.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Restored cooldown (minutes)</span>
            <input
              type="number"
              name="restored_cooldown"
              min={0}
              max={10080}
              value={restored}
              onInput={(e) => setRestored(e.currentTarget.value)}
            />
          </label>
        </div>
        <div class="actions">
          <button type="submit" disabled={act.busy}>
            Save cooldowns
          </button>
          <button type="button" disabled={act.busy} onClick={test}>
            Send test notification
          </button>
        </div>
      </form>
    </Card>
  );
}

function SystemCard() {
  const sys = useLoad(() => api<Record<string, unknown>>('/api/relaynode/system'));
  return (
    <Card title="Relay node system">
      {sys.error ? <Banner>{sys.error}</Banner> : null}
      {sys.data ? (
        <dl class="kv" data-testid="node-system">
          {flatten(sys.data).map(([k, v]) => (
            <Fragment key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </Fragment>
          ))}
        </dl>
      ) : null}
      <div class="actions">
        <button type="button" onClick={sys.reload}>
          Refresh
        </button>
      </div>
    </Card>
  );
}
