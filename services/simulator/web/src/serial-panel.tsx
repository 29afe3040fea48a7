import { apiFetch, Card, errorText, toneClass } from '@outpost/ui';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Post, SerialDevice, Status } from './types.js';

const BAUDRATES = [4800, 9600, 19200, 38400, 57600, 115200, 230400];

export function SerialPanel({ status, post }: { status: Status; post: Post }) {
  const [devices, setDevices] = useState<SerialDevice[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Settings apply while running; only a start in progress holds them.
  const locked = status.starting;

  const refresh = useCallback(() => {
    setError(null);
    apiFetch<{ devices: SerialDevice[] }>('/api/serial/devices')
      .then((r) => setDevices(r.devices))
      .catch((err) => setError(errorText(err)));
  }, []);
  useEffect(refresh, [refresh]);

  const selected = status.serial.device ?? '';
  const known = devices?.some((d) => d.device === selected) ?? false;

  return (
    <Card title="USB serial device" id="serial">
      <fieldset disabled={locked}>
        <legend>Device</legend>
        <div class="row">
          <select
            name="serial-device"
            aria-label="Serial device"
            value={selected}
            onChange={(e) => {
              const device = e.currentTarget.value;
              void (device === ''
                ? post('/api/config/serial', { device: null })
                : post('/api/serial/select', { device }));
            }}
          >
            <option value="">No device</option>
            {selected && !known ? <option value={selected}>{selected} (not present)</option> : null}
            {(devices ?? []).map((d) => (
              <option key={d.device} value={d.device}>
                {d.name || d.path}
                {d.manufacturer ? ` — ${d.manufacturer}` : ''}
              </option>
            ))}
          </select>
          <button type="button" onClick={refresh} style={{ flex: '0 0 auto' }}>
            Refresh
          </button>
        </div>
        {devices && devices.length === 0 ? <p class="muted">No USB-serial devices found</p> : null}
        {error ? <p class={toneClass('error')}>{error}</p> : null}
        <label class="field">
          <span>Baud rate</span>
          <select
            name="baudrate"
            value={String(status.serial.baudrate)}
            onChange={(e) => void post('/api/config/serial', { baudrate: Number(e.currentTarget.value) })}
          >
            {BAUDRATES.map((b) => (
              <option key={b} value={String(b)}>
                {b}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
    </Card>
  );
}
