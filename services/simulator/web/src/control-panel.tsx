import { Banner, Card, formatDuration, useTick } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { validateStart } from '../../src/domain/start-validation.js';
import type { Status } from './types.js';
import type { SimulatorStore } from './use-simulator.js';

/** The same checks the server makes, on the state the server holds, so the reasons show before sending. */
export function startMessages(s: Status): string[] {
  return validateStart({
    modes: s.modes,
    airport_icao: s.airport_icao,
    serial_device: s.serial.device,
    network: s.network,
  });
}

export function ControlPanel({ store, status }: { store: SimulatorStore; status: Status }) {
  const [attempted, setAttempted] = useState(false);
  const [busy, setBusy] = useState(false);
  const messages = attempted && !status.running ? startMessages(status) : [];
  useTick(1000);
  const startedMs = status.started_at ? Date.parse(status.started_at) : Number.NaN;
  const uptime = Number.isFinite(startedMs) ? (Date.now() - startedMs) / 1000 : status.uptime_seconds;

  const start = async () => {
    setBusy(true);
    try {
      // Settings typed just before pressing Start are still on their way; check what the server will check.
      await store.settled();
      setAttempted(true);
      const now = store.latest() ?? status;
      if (startMessages(now).length > 0) return;
      await store.post('/api/control', { action: 'start' });
    } finally {
      setBusy(false);
    }
  };
  const stop = async () => {
    setBusy(true);
    try {
      await store.post('/api/control', { action: 'stop' });
      setAttempted(false);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Emulator" id="control">
      {status.banner ? <Banner kind="error">{status.banner}</Banner> : null}
      {messages.length > 0 ? (
        // The alert wraps the list: a role on the <ul> itself would take away its list semantics.
        <div role="alert" data-testid="start-messages">
          <ul class="messages">
            {messages.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div class="row">
        <button
          type="button"
          class="primary"
          onClick={start}
          disabled={busy || status.running || status.starting}
        >
          Start
        </button>
        <button type="button" class="danger" onClick={stop} disabled={busy || !status.running}>
          Stop
        </button>
      </div>
      <p class="muted">
        {status.running ? `Running in ${status.mode ?? '–'} mode for ${formatDuration(uptime)}` : 'Stopped'}
      </p>
    </Card>
  );
}
