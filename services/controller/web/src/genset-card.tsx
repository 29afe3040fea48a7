import { ApiError, Banner, Card } from '@outpost/ui';
import { useEffect } from 'preact/hooks';
import { api } from './api.js';
import { useLoad } from './feedback.js';
import type { GensetState } from './types.js';

const MODES: Record<NonNullable<GensetState['mode']>, string> = {
  stop: 'Stop',
  auto: 'Auto',
  manual: 'Manual',
  test_on_load: 'Test on load',
  auto_manual_restore: 'Auto (manual restore)',
  user_configuration: 'User configuration',
  test_off_load: 'Test off load',
  off: 'Off',
};
const LEVELS = { warning: 'warning', shutdown: 'shutdown', electrical_trip: 'electrical trip' } as const;

/** The report, or null before the relay node sent one (404): the card is then not shown. */
async function loadGenset(): Promise<GensetState | null> {
  try {
    return await api<GensetState>('/api/genset');
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

const show = (v: number | null, unit: string, digits = 0) =>
  v === null ? '—' : `${v.toFixed(digits)} ${unit}`;

/**
 * The generator's own controller as the relay node reads it over Modbus: its mode (a warning when not
 * in Auto), the gauges an operator checks first, and its active alarms. Stale: every value unknown.
 */
export function GensetCard() {
  const genset = useLoad(loadGenset);
  useEffect(() => {
    const timer = setInterval(genset.reload, 2000);
    return () => clearInterval(timer);
  }, []);
  const g = genset.data;
  if (!g) return null;
  const i = g.instruments;
  const notAuto = g.mode !== null && g.mode !== 'auto' && g.mode !== 'auto_manual_restore';
  return (
    <Card title="Generator's controller">
      {g.stale ? (
        <div data-testid="genset-stale">
          <Banner>The generator's controller is not answering: every value is unknown.</Banner>
        </div>
      ) : null}
      {notAuto && g.mode ? (
        <div data-testid="genset-mode-warning">
          <Banner>
            The generator's controller is in {MODES[g.mode]} mode, not Auto: a remote start
            {g.mode === 'stop' ? ' is refused.' : ' may do nothing.'}
          </Banner>
        </div>
      ) : null}
      <dl class="readout">
        <div>
          <dt>Mode</dt>
          <dd data-testid="genset-mode">{g.mode ? MODES[g.mode] : 'unknown'}</dd>
        </div>
        <div>
          <dt>Engine</dt>
          <dd data-testid="genset-engine">{g.engine_state?.replace(/_/g, ' ') ?? 'unknown'}</dd>
        </div>
        <div>
          <dt>Oil pressure</dt>
          <dd data-testid="genset-oil">{show(i.oil_pressure_kpa, 'kPa')}</dd>
        </div>
        <div>
          <dt>Coolant</dt>
          <dd>{show(i.coolant_temperature_c, '°C')}</dd>
        </div>
        <div>
          <dt>Battery</dt>
          <dd>{show(i.battery_voltage_v, 'V', 1)}</dd>
        </div>
        <div>
          <dt>Fuel</dt>
          <dd data-testid="genset-fuel">{show(i.fuel_level_percent, '%')}</dd>
        </div>
        <div>
          <dt>Frequency</dt>
          <dd>{show(i.frequency_hz, 'Hz', 1)}</dd>
        </div>
        <div>
          <dt>Load</dt>
          <dd>{show(i.load_percent, '%')}</dd>
        </div>
      </dl>
      <ul data-testid="genset-alarms">
        {g.alarms.active.length === 0 ? (
          <li class="muted">{g.stale ? 'Alarms unknown' : 'No alarms'}</li>
        ) : null}
        {g.alarms.active.map((a) => (
          <li key={`${a.index}-${a.level}`}>
            {(a.name ?? `alarm ${a.index}`).replace(/_/g, ' ')}: {LEVELS[a.level]}
          </li>
        ))}
      </ul>
    </Card>
  );
}

/** The Status page's warning: the module known to be in a mode where a remote start does nothing. */
export function GensetModeBanner({ genset }: { genset: GensetState | null | undefined }) {
  const mode = genset && !genset.stale ? genset.mode : null;
  if (!mode || mode === 'auto' || mode === 'auto_manual_restore') return null;
  return (
    <Banner kind="warn">
      <span data-testid="status-genset-warning">
        The generator's controller is in {MODES[mode]} mode, not Auto: a remote start
        {mode === 'stop' ? ' is refused' : ' may do nothing'} — see <a href="#/health">Health</a>
      </span>
    </Banner>
  );
}
