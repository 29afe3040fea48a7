import type { FleetTracker } from './fleet.js';
import type { SiteTracker } from './sites.js';

export interface BuiltSnapshot {
  /** The fleet_state message as JSON text. */
  readonly text: string;
  /** The same text as bytes, shared by every WebSocket send and the retained MQTT copy. */
  readonly bytes: Buffer;
  readonly atMs: number;
}

/**
 * Builds the fleet_state message straight to text: the simulators' cached fragments plus their ages.
 * Nothing is re-validated here; every field came from a schema-checked message.
 */
export function buildSnapshot(fleet: FleetTracker, sites: SiteTracker, nowMs: number): BuiltSnapshot {
  const at = Math.round(nowMs);
  const text =
    `{"type":"fleet_state","timestamp_ms":${at},"simulators":${fleet.json(at)},` +
    `"generators":${JSON.stringify(sites.list())}}`;
  return { text, bytes: Buffer.from(text, 'utf8'), atMs: at };
}
