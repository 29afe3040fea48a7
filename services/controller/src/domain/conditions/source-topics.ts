import type { SourceConfig, SourceName } from '@outpost/contracts/conditions';

/**
 * Where each source reads on a Victron GX (Venus OS MQTT, `N/<portal id>/<service>/<instance>/<path>`):
 * the battery monitor for state of charge, voltage and current; the inverter (vebus) for its AC
 * output power, its two warnings and whether its AC input (grid or shore) is connected.
 */
const VICTRON_PATHS: Record<SourceName, (battery: number, vebus: number) => string> = {
  soc: (b) => `battery/${b}/Soc`,
  battery_voltage: (b) => `battery/${b}/Dc/0/Voltage`,
  battery_current: (b) => `battery/${b}/Dc/0/Current`,
  ac_load: (_b, v) => `vebus/${v}/Ac/Out/P`,
  high_temperature: (_b, v) => `vebus/${v}/Alarms/HighTemperature`,
  overload: (_b, v) => `vebus/${v}/Alarms/Overload`,
  grid: (_b, v) => `vebus/${v}/Ac/ActiveIn/Connected`,
};

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
      return `N/${src.portal_id}/${VICTRON_PATHS[name](src.battery_instance, src.vebus_instance)}`;
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
