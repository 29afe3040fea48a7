import type { FleetTracker } from './fleet.js';
import type { SiteTracker } from './sites.js';

export interface BuiltSnapshot {
  /** The fleet_state message as JSON text. */
  readonly text: string;
  /** The same text as bytes, shared by every WebSocket send and the retained MQTT copy. */
  readonly bytes: Buffer;
  /** The same message without `generators`: for a client that may not see the sites (sites-access.ts). */
  readonly fleetOnlyText: string;
  readonly fleetOnlyBytes: Buffer;
  readonly atMs: number;
}

/**
 * Builds the fleet_state message straight to text: the simulators' cached fragments plus their ages.
 * Nothing is re-validated here; every field came from a schema-checked message.
 */
export function buildSnapshot(fleet: FleetTracker, sites: SiteTracker, nowMs: number): BuiltSnapshot {
  const at = Math.round(nowMs);
  const fleetOnlyText = `{"type":"fleet_state","timestamp_ms":${at},"simulators":${fleet.json(at)}}`;
  const text = `${fleetOnlyText.slice(0, -1)},"generators":${JSON.stringify(sites.list())}}`;
  return {
    text,
    bytes: Buffer.from(text, 'utf8'),
    fleetOnlyText,
    fleetOnlyBytes: Buffer.from(fleetOnlyText, 'utf8'),
    atMs: at,
  };
}
