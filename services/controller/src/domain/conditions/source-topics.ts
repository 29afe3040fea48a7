import type { SourceConfig, SourceName } from '@outpost/contracts/conditions';

type VictronSourceConfig = Extract<SourceConfig, { type: 'victron_gx' }>;

/**
 * Where each source reads on a Victron GX (Venus OS MQTT, `N/<portal id>/<service>/<instance>/<path>`).
 * By default the GX's own system service (com.victronenergy.system, instance 0, dbus-systemcalc-py):
 * the state of charge, voltage and current of the battery monitor the GX selected, the total AC
 * consumption, and the source on the active AC input. With an instance, that device: the battery
 * monitor (battery/<n>), the inverter (vebus/<n>: its AC output power and whether its AC input is
 * connected). The warnings exist only on the inverter (the schema asks for its instance).
 */
function victronPath(name: SourceName, src: VictronSourceConfig): string {
  const b = src.battery_instance;
  const v = src.vebus_instance;
  switch (name) {
    case 'soc':
      return b === null ? 'system/0/Dc/Battery/Soc' : `battery/${b}/Soc`;
    case 'battery_voltage':
      return b === null ? 'system/0/Dc/Battery/Voltage' : `battery/${b}/Dc/0/Voltage`;
    case 'battery_current':
      return b === null ? 'system/0/Dc/Battery/Current' : `battery/${b}/Dc/0/Current`;
    case 'ac_load':
      return v === null ? 'system/0/Ac/Consumption/Total/Power' : `vebus/${v}/Ac/Out/P`;
    case 'high_temperature':
      return `vebus/${v}/Alarms/HighTemperature`;
    case 'overload':
      return `vebus/${v}/Alarms/Overload`;
    case 'grid':
      return v === null ? 'system/0/Ac/ActiveIn/Source' : `vebus/${v}/Ac/ActiveIn/Connected`;
  }
}

/**
 * system/0/Ac/ActiveIn/Source names what feeds the active AC input: 1 grid and 3 shore count as grid
 * present; 2 (the generator itself), 240 (no input connected, inverting) and 0 (not available) do not.
 */
const VICTRON_GRID_SOURCES: ReadonlySet<number> = new Set([1, 3]);

/**
 * Signs of life from a GX that publishes values only when they change: while it is kept alive it
 * sends `N/<portal>/heartbeat` every 3 s, and a full publish ends with `N/<portal>/full_publish_completed`
 * (dbus-flashmq src/state.cpp, State::heartbeat and State::publish_all).
 */
export const victronLifeTopics = (portalId: string): string[] => [
  `N/${portalId}/heartbeat`,
  `N/${portalId}/full_publish_completed`,
];
/** The portal a `N/<portal>/…` topic comes from, or null. */
export function victronPortalOf(topic: string): string | null {
  const m = /^N\/([A-Za-z0-9]+)\//.exec(topic);
  return m ? (m[1] as string) : null;
}
/** The one value a GX keeps retained, even before a keep-alive: its serial, the portal id (types.cpp). */
export const VICTRON_SERIAL_FILTER = 'N/+/system/0/Serial';
/**
 * Life after this much silence from a portal means the GX came back (rebooted, reconnected to a bridge):
 * the values held from before may be old, so an empty keep-alive asks for all of them again.
 */
export const VICTRON_SILENCE_MS = 10_000;

/** The GX publishes only while someone sends this at least every 60 s (dbus-flashmq's keep-alive). */
export const victronKeepaliveTopic = (portalId: string): string => `R/${portalId}/keepalive`;
/** Sent every 30 s, half the GX's 60 s keep-alive timeout; the first one (empty) asks for every value. */
export const VICTRON_KEEPALIVE_MS = 30_000;
export const VICTRON_KEEPALIVE_REPEAT = JSON.stringify({ 'keepalive-options': ['suppress-republish'] });

/** The topic a source listens to; null for a REST source. */
export function sourceTopic(name: SourceName, src: SourceConfig): string | null {
  switch (src.type) {
    case 'mqtt':
      return src.topic;
    case 'victron_gx':
      // No portal id yet: the save finds it (the retained serial) before the source is in force.
      return src.portal_id === undefined ? null : `N/${src.portal_id}/${victronPath(name, src)}`;
    case 'ha_statestream': {
      const [domain, object] = src.entity_id.split('.');
      return `${src.base_topic}/${domain}/${object}/state`;
    }
    case 'rest':
      return null;
  }
}

/** The scale in force: Venus OS counts battery discharge negative, the condition counts it positive. */
export function sourceScale(name: SourceName, src: SourceConfig): number {
  if (src.type === 'victron_gx') return src.scale ?? (name === 'battery_current' ? -1 : 1);
  return src.scale;
}

const WORDS: Record<string, number> = { on: 1, off: 0, true: 1, false: 0, home: 1, not_home: 0 };
/** Home Assistant's words for "no value" (and Venus OS's empty payload for a device that left). */
const NO_VALUE = new Set(['', 'unavailable', 'unknown', 'none', 'null']);

function asNumber(v: unknown): number | null | undefined {
  if (v === null) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (NO_VALUE.has(t)) return null;
    if (t in WORDS) return WORDS[t];
    const n = Number(t);
    return t !== '' && Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function walk(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * A payload as the source's value, scaled: a number, null when the source says it has none (Venus OS
 * `{"value": null}` or an empty payload, Home Assistant `unavailable`), undefined when it is not one
 * this source understands (logged and dropped; it does not refresh the source).
 */
export function parseSourcePayload(
  name: SourceName,
  src: SourceConfig,
  payload: string,
): number | null | undefined {
  let raw: number | null | undefined;
  if (src.type === 'victron_gx') {
    if (payload.trim() === '') raw = null;
    else raw = asNumber(walk(safeJson(payload), 'value'));
    if (name === 'grid' && src.vebus_instance === null && typeof raw === 'number')
      raw = VICTRON_GRID_SOURCES.has(raw) ? 1 : 0;
  } else if (src.type === 'mqtt' && src.json_path !== null) {
    raw = asNumber(walk(safeJson(payload), src.json_path));
  } else {
    raw = asNumber(payload);
    if (raw === undefined) raw = asNumber(safeJson(payload));
  }
  if (raw === null || raw === undefined) return raw;
  return raw * sourceScale(name, src);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
