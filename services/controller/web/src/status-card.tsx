import { Banner, Card, Flag, formatDuration, toneClass } from '@outpost/ui';
import { at } from './time.js';
import type { GenState } from './types.js';

/** Past this, the relay node's clock is off: an amber reading and a banner (the controller logs it too). */
export const CLOCK_WARN_SECONDS = 5;

const HOA_TEXT: Record<string, string> = {
  quiet:
    'HOA selector at Quiet: automatic starts (bms, schedule, exercise) are held off; manual starts still work',
  run: 'HOA selector at Run: the generator is held on by the operator',
  fault: 'HOA selector fault (both contacts closed): treated as Auto; check the switch wiring',
};

/** Safety conditions first, as the controller ranks them: EPO, HOA, overrides, lockout, cooldown. */
export function StateBanners({ s }: { s: GenState }) {
  return (
    <div class="banners" data-testid="banners">
      {s.slave_physical_safety_engaged ? (
        <Banner>
          <span data-testid="epo-banner">
            EPO engaged at the relay node: the relay is held off and every start is refused until it is
            released.
          </span>
        </Banner>
      ) : null}
      {s.hoa_position && s.hoa_position !== 'auto' ? (
        <Banner kind="warn">
          <span data-testid="hoa-banner">{HOA_TEXT[s.hoa_position]}</span>
        </Banner>
      ) : null}
      {s.quiet_override_active ? (
        <Banner kind="info">Quiet override in force until {at(s.quiet_override_expires_at)}</Banner>
      ) : null}
      {s.override ? (
        <Banner kind="warn">
          <span data-testid="override-banner">
            Override in force:{' '}
            {s.override === 'force_run'
              ? 'force run (the input signal cannot stop a run)'
              : 'force stop (automatic starts are blocked)'}
          </span>
        </Banner>
      ) : null}
      {s.lockout_active ? (
        <Banner>
          <span data-testid="lockout-banner">
            Runtime lockout: the generator reached its maximum runtime. No restart until the lockout is
            acknowledged.
          </span>
        </Banner>
      ) : null}
      {s.cooldown_active ? (
        <Banner kind="warn">
          <span data-testid="cooldown-banner">
            Cooldown: automatic starts wait {formatDuration(s.cooldown_remaining_seconds ?? 0)} more; manual
            starts bypass it.
          </span>
        </Banner>
      ) : null}
      {s.failsafe_triggered ? (
        <Banner>The relay node's failsafe dropped the relay (no heartbeat within its timeout).</Banner>
      ) : null}
      {s.manual_disarm_active && !s.armed ? (
        <Banner kind="info">Disarmed at boot by the fail-safe policy: arm again when it is safe.</Banner>
      ) : null}
    </div>
  );
}

export function StatusCard({
  s,
  nodeRelay,
  stale,
}: {
  s: GenState;
  nodeRelay: boolean | null;
  stale: boolean;
}) {
  const link = s.slave_connection_status ?? (s.slave_connected ? 'connected' : 'disconnected');
  return (
    <Card title="Generator">
      <p class={`big-state ${toneClass(s.running ? 'running' : 'idle')}`} data-testid="gen-state">
        {s.running ? 'Running' : s.state === 'idle' ? 'Idle' : s.state}
      </p>
      {stale ? (
        <p class={toneClass('stale')}>No answer from the controller; the values below may be old.</p>
      ) : null}
      <dl class="readout">
        <div>
          <dt>Trigger</dt>
          <dd data-testid="trigger">{s.trigger ?? '–'}</dd>
        </div>
        <div>
          <dt>Runtime</dt>
          <dd data-testid="runtime" data-seconds={s.runtime_seconds}>
            {s.running ? formatDuration(s.runtime_seconds) : '–'}
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{s.running ? at(s.start_time) : '–'}</dd>
        </div>
        <div>
          <dt>Auto-stop</dt>
          <dd data-testid="auto-stop">{s.scheduled_stop_at ? at(s.scheduled_stop_at) : '–'}</dd>
        </div>
        <div>
          <dt>Armed</dt>
          <dd data-testid="armed">
            <Flag value={s.armed} yes="armed" no="disarmed" yesIs="armed" noIs="disarmed" />
          </dd>
        </div>
        <div>
          <dt>Relay node</dt>
          <dd
            data-testid="node-link"
            class={toneClass(link === 'connected' ? 'connected' : link === 'unknown' ? 'unknown' : 'offline')}
          >
            {link}
          </dd>
        </div>
        <div>
          <dt>Node relay</dt>
          <dd
            data-testid="node-relay"
            class={nodeRelay === null ? '' : toneClass(nodeRelay ? 'relay_on' : 'relay_off')}
          >
            {nodeRelay === null ? '–' : nodeRelay ? 'ON' : 'OFF'}
          </dd>
        </div>
        <div>
          <dt>Relay confirmed</dt>
          <dd data-testid="relay-confirmed">
            {s.relay_confirmed_at
              ? at(s.relay_confirmed_at)
              : s.running
                ? (s.relay_unconfirmed_reason ?? 'pending')
                : '–'}
          </dd>
        </div>
        <div>
          <dt>Node clock</dt>
          <dd
            data-testid="node-clock-offset"
            class={
              Math.abs(s.relaynode_clock_offset_seconds ?? 0) > CLOCK_WARN_SECONDS
                ? toneClass('clock_offset')
                : ''
            }
          >
            {s.relaynode_clock_offset_seconds == null
              ? '–'
              : `${s.relaynode_clock_offset_seconds > 0 ? '+' : ''}${s.relaynode_clock_offset_seconds.toFixed(1)} s`}
          </dd>
        </div>
        <div>
          <dt>HOA</dt>
          <dd
            data-testid="hoa"
            class={s.hoa_position ? toneClass(s.hoa_position === 'auto' ? 'auto' : 'not_auto') : ''}
          >
            {s.hoa_position ?? '–'}
          </dd>
        </div>
        <div>
          <dt>Input signal</dt>
          <dd data-testid="bms">
            {s.bms_signal_active === undefined ? '–' : s.bms_signal_active ? 'HIGH' : 'LOW'}
          </dd>
        </div>
        <div>
          <dt>Override</dt>
          <dd>{s.override ?? 'none'}</dd>
        </div>
        <div>
          <dt>Missed heartbeats</dt>
          <dd>{s.missed_heartbeat_count ?? '–'}</dd>
        </div>
      </dl>
    </Card>
  );
}
