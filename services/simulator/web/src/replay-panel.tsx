import type { simulator } from '@outpost/contracts';
import { ApiError, apiFetch, Card, errorText } from '@outpost/ui';
import { useState } from 'preact/hooks';
import type { Status } from './types.js';
import type { SimulatorStore } from './use-simulator.js';

const SPEEDS = [1, 2, 4, 8, 16];
const MAX_BYTES = 10 * 1024 * 1024;

/**
 * Track replay: an NMEA log or a GPX file sent as the request body, then speed, pause, loop and
 * unload. The state comes back to every console in the status.
 */
export function ReplayPanel({ status, store }: { status: Status; store: SimulatorStore }) {
  const r = status.replay;
  const [busy, setBusy] = useState(false);

  const call = async (path: string, init: { method: 'POST' | 'DELETE'; body?: unknown }) => {
    try {
      await apiFetch<simulator.ReplayStatus>(path, init);
      store.setError(null);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) store.setError(errorText(err));
    }
  };

  const upload = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_BYTES) {
      store.setError(`${file.name} is larger than 10 MB`);
      return;
    }
    setBusy(true);
    try {
      const res = await fetch('/api/replay', { method: 'POST', credentials: 'same-origin', body: file });
      const body = (await res.json()) as { detail?: string };
      store.setError(res.ok ? null : (body.detail ?? `Upload failed (${res.status})`));
    } catch (err) {
      store.setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const control = (c: simulator.ReplayControl) =>
    void call('/api/replay/control', { method: 'POST', body: c });

  return (
    <Card title="Track replay" id="replay">
      <label class="field">
        <span>NMEA log (GGA/RMC) or GPX track, at most 10 MB</span>
        <input
          type="file"
          name="replay-file"
          accept=".nmea,.log,.txt,.gpx,application/gpx+xml,text/plain"
          disabled={busy}
          onChange={(e) => void upload(e.currentTarget.files?.[0])}
        />
      </label>
      {r?.loaded ? (
        <>
          <p data-testid="replay-state">
            {r.format?.toUpperCase()} · {r.points} points
            {r.skipped > 0 ? ` · ${r.skipped} skipped` : ''} · {r.position_s.toFixed(0)} /{' '}
            {r.duration_s.toFixed(0)} s
            {r.finished ? ' · finished' : r.paused ? ' · paused' : ` · ${r.speed}×`}
          </p>
          <div class="row">
            <button type="button" onClick={() => control({ paused: !r.paused })}>
              {r.paused ? 'Play' : 'Pause'}
            </button>
            <label class="field">
              <span>Speed</span>
              <select
                name="replay-speed"
                value={String(r.speed)}
                onChange={(e) => control({ speed: Number(e.currentTarget.value) })}
              >
                {SPEEDS.map((s) => (
                  <option key={s} value={String(s)}>
                    {s}×
                  </option>
                ))}
              </select>
            </label>
            <label class="check">
              <input
                type="checkbox"
                name="replay-loop"
                checked={r.loop}
                onChange={(e) => control({ loop: e.currentTarget.checked })}
              />
              <span>Loop</span>
            </label>
            <button type="button" onClick={() => control({ position_s: 0 })}>
              Restart
            </button>
            <button type="button" onClick={() => void call('/api/replay', { method: 'DELETE' })}>
              Unload
            </button>
          </div>
        </>
      ) : (
        <p class="muted">No track loaded</p>
      )}
    </Card>
  );
}
