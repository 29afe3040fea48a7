import { Card, CheckField } from '@outpost/ui';
import type { ModeFlags, Post, Status } from './types.js';

const MODES: ReadonlyArray<{ key: keyof ModeFlags; label: string; hint: string }> = [
  { key: 'standalone', label: 'Stand-alone', hint: 'generates position, drives USB and/or EFB' },
  { key: 'sender', label: 'Sender', hint: 'generates position, publishes over UDP or TCP' },
  { key: 'receiver', label: 'Receiver', hint: 'ingests a position stream (JSON, CYGNUS or NMEA)' },
  { key: 'rebroadcaster', label: 'Rebroadcaster', hint: 'receiver plus USB, EFB and UDP fan-out' },
];

export function ModePanel({ status, post }: { status: Status; post: Post }) {
  // Settings apply while running; only a start in progress holds them.
  const locked = status.starting;
  const choose = (key: keyof ModeFlags) => {
    const flags: Partial<ModeFlags> = {};
    for (const m of MODES) flags[m.key] = m.key === key;
    void post('/api/config/modes', flags);
  };
  return (
    <Card title="Operating mode" id="mode">
      <fieldset disabled={locked}>
        <legend>Mode</legend>
        {MODES.map((m) => (
          <label class="check" key={m.key}>
            <input
              type="radio"
              name="mode"
              value={m.key}
              checked={status.modes[m.key]}
              onChange={() => choose(m.key)}
            />
            <span>
              {m.label} <span class="muted">— {m.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <CheckField
        name="usb_output"
        label="USB serial output (NMEA)"
        checked={status.modes.usb_output}
        disabled={locked}
        onChange={(v) => void post('/api/config/modes', { usb_output: v })}
      />
    </Card>
  );
}
