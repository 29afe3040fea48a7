import { AppShell, Banner, ConnBadge, toneClass } from '@outpost/ui';
import { AirportPicker } from './airport-picker.js';
import { ControlPanel } from './control-panel.js';
import { ModePanel } from './mode-panel.js';
import { NetworkPanel } from './network-panel.js';
import { NmeaLog } from './nmea-log.js';
import { NmeaPanel } from './nmea-panel.js';
import { PositionPanel } from './position-panel.js';
import { ReplayPanel } from './replay-panel.js';
import { RouteEditor } from './route-editor.js';
import { SerialPanel } from './serial-panel.js';
import { SimMap } from './sim-map.js';
import { useSimulator } from './use-simulator.js';

export function Console({
  username,
  bypass,
  onLogout,
  onUnauthorized,
}: {
  username: string | null;
  bypass: boolean;
  onLogout: () => void;
  onUnauthorized: () => void;
}) {
  const store = useSimulator(onUnauthorized);
  const { status } = store;
  const right = (
    <>
      <ConnBadge state={store.live} />
      {status ? (
        <span class={toneClass(status.running ? 'running' : 'stopped')} data-testid="run-state">
          {status.running ? 'running' : status.starting ? 'starting…' : 'stopped'}
        </span>
      ) : null}
      {bypass ? (
        <span class={toneClass('unprotected')}>auth bypassed</span>
      ) : (
        <span class="muted">{username}</span>
      )}
      {bypass ? null : (
        <button type="button" onClick={onLogout}>
          Log out
        </button>
      )}
    </>
  );
  return (
    <AppShell title="GPS simulator" right={right}>
      {store.error && store.error !== status?.banner ? (
        <div class="card-wide">
          <Banner onClose={store.clearError}>{store.error}</Banner>
        </div>
      ) : null}
      {status ? (
        <>
          <ControlPanel store={store} status={status} />
          <ModePanel status={status} post={store.post} />
          <AirportPicker status={status} airport={store.airport} post={store.post} />
          <SimMap status={status} />
          <PositionPanel status={status} post={store.post} />
          <RouteEditor status={status} store={store} />
          <ReplayPanel status={status} store={store} />
          <NetworkPanel status={status} post={store.post} />
          <SerialPanel status={status} post={store.post} />
          <NmeaPanel status={status} post={store.post} />
          <NmeaLog lines={store.log} running={status.running} />
        </>
      ) : (
        <p class="muted">Loading…</p>
      )}
    </AppShell>
  );
}
