import type { FleetSimulator, FleetSimulatorStatus, simulator } from '@outpost/contracts';

type Heartbeat = simulator.SimulatorHeartbeat;
type Position = simulator.SimulatorPosition;

/** A simulator is online while its heartbeat is younger than this… */
export const HEARTBEAT_FRESH_MS = 3000;
/** …and its position younger than this (a heartbeat carrying lat/lon counts as a position report). */
export const POSITION_FRESH_MS = 5000;
/**
 * A receiver's or rebroadcaster's input older than this is a lost feed (the simulator itself stops
 * driving its outputs after the same 5 s).
 */
export const INPUT_FRESH_MS = 5000;
/** Simulators seen on the bus but not configured are shown too, up to this many in all. */
export const DEFAULT_MAX_SIMULATORS = 10_000;

interface Entry {
  readonly id: string;
  readonly expected: boolean;
  /** From the retained availability topic: false once the last will (or a clean shutdown) said offline. */
  available: boolean | null;
  hb: Heartbeat | null;
  /** Receipt times on the dashboard's clock, so a simulator's clock skew cannot make it look fresh. */
  hbAtMs: number | null;
  posAtMs: number | null;
  lat: number | null;
  lon: number | null;
  altitude_ft: number | null;
  speed_kts: number | null;
  heading: number | null;
  /** JSON of the fields that change only when a message arrives; null when a message changed them. */
  cached: string | null;
}

export interface FleetOptions {
  expected: readonly string[];
  maxSimulators?: number;
  /** Called once when a simulator beyond maxSimulators is ignored. */
  onOverflow?: (id: string) => void;
}

const round = (v: number | null, digits: number): number | null => {
  if (v === null) return null;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

/** Modes whose position comes from a network feed that can be lost. */
const listens = (mode: string | null): boolean => mode === 'receiver' || mode === 'rebroadcaster';

const ageSeconds = (nowMs: number, atMs: number | null): number | null =>
  atMs === null ? null : Math.round(Math.max(0, nowMs - atMs) / 100) / 10;

/**
 * The fleet's simulators, updated in place per message. The 1 Hz snapshot reuses each simulator's
 * cached JSON and only appends the time-dependent fields, so a quiet simulator costs almost nothing
 * and a busy one is serialised once per change, not once per reader.
 */
export class FleetTracker {
  private readonly entries = new Map<string, Entry>();
  private readonly order: Entry[] = [];
  private readonly max: number;
  private overflowReported = false;

  constructor(private readonly opts: FleetOptions) {
    this.max = opts.maxSimulators ?? DEFAULT_MAX_SIMULATORS;
    for (const id of opts.expected) this.add(id, true);
  }

  get size(): number {
    return this.order.length;
  }

  heartbeat(id: string, hb: Heartbeat, nowMs: number): void {
    const e = this.entry(id);
    if (!e) return;
    e.hb = hb;
    e.hbAtMs = nowMs;
    if (hb.lat != null && hb.lon != null) {
      e.lat = hb.lat;
      e.lon = hb.lon;
      if (hb.altitude_ft != null) e.altitude_ft = hb.altitude_ft;
      e.posAtMs = nowMs;
    }
    // A heartbeat proves the process is connected, whatever an older retained availability said.
    e.available = true;
    e.cached = null;
  }

  position(id: string, p: Position, nowMs: number): void {
    const e = this.entry(id);
    if (!e) return;
    e.lat = p.lat;
    e.lon = p.lon;
    e.altitude_ft = p.altitude_ft;
    e.speed_kts = p.speed_kts;
    e.heading = p.heading;
    e.posAtMs = nowMs;
    e.cached = null;
  }

  availability(id: string, online: boolean): void {
    const e = this.entry(id, online);
    if (!e) return;
    e.available = online;
    if (!online) {
      // The last will: the heartbeat that came before it says nothing about now.
      e.hbAtMs = null;
      e.posAtMs = null;
    }
    e.cached = null;
  }

  /** One simulator's entry as the snapshot shows it. */
  get(id: string, nowMs: number): FleetSimulator | null {
    const e = this.entries.get(id);
    return e ? (JSON.parse(this.entryJson(e, nowMs)) as FleetSimulator) : null;
  }

  /** The `simulators` array as JSON text, in configuration order then discovery order. */
  json(nowMs: number): string {
    const parts = new Array<string>(this.order.length);
    for (let i = 0; i < this.order.length; i++) parts[i] = this.entryJson(this.order[i] as Entry, nowMs);
    return `[${parts.join(',')}]`;
  }

  /** Counts for logs and metrics. */
  counts(nowMs: number): { total: number; online: number } {
    let online = 0;
    for (const e of this.order) if (this.isOnline(e, nowMs)) online++;
    return { total: this.order.length, online };
  }

  /** Fresh heartbeat and position, and fresh input when the heartbeat reports an input age. */
  private isOnline(e: Entry, nowMs: number, inputAge = this.inputAge(e, nowMs)): boolean {
    return (
      e.available !== false &&
      e.hbAtMs !== null &&
      nowMs - e.hbAtMs < HEARTBEAT_FRESH_MS &&
      e.posAtMs !== null &&
      nowMs - e.posAtMs < POSITION_FRESH_MS &&
      // A held position is not a live one: a lost feed is not online even before its fix ages out.
      (inputAge === null || inputAge * 1000 <= INPUT_FRESH_MS)
    );
  }

  /** The input age the last heartbeat reported, grown by the time since it arrived. */
  private inputAge(e: Entry, nowMs: number): number | null {
    const hbAge = ageSeconds(nowMs, e.hbAtMs);
    const reported = e.hb?.last_input_age_seconds ?? null;
    return reported === null || hbAge === null ? null : Math.round((reported + hbAge) * 10) / 10;
  }

  /**
   * The one-word status: process up (availability), emulator running, input arriving. A heartbeat
   * keeps carrying the mode and the input age, so a rebroadcaster whose feed died is `feed lost`
   * although its process is fine.
   */
  private statusOf(
    e: Entry,
    nowMs: number,
    inputAge: number | null,
  ): { status: FleetSimulatorStatus; receivingInput: boolean | null } {
    if (e.available === false) return { status: 'offline', receivingInput: null };
    const hbFresh = e.hbAtMs !== null && nowMs - e.hbAtMs < HEARTBEAT_FRESH_MS;
    if (hbFresh && e.hb) {
      if (!e.hb.running) return { status: 'stopped', receivingInput: null };
      if (!listens(e.hb.mode)) return { status: 'online', receivingInput: null };
      if (inputAge === null) return { status: 'no input', receivingInput: false };
      if (inputAge * 1000 > INPUT_FRESH_MS) return { status: 'feed lost', receivingInput: false };
      return { status: 'online', receivingInput: true };
    }
    if (e.posAtMs !== null && nowMs - e.posAtMs < POSITION_FRESH_MS)
      return { status: 'online', receivingInput: null };
    // Up but silent: only a rebroadcaster sends heartbeats, so this is not a dead process.
    return {
      status: e.available === true ? 'online, idle' : 'offline',
      receivingInput: null,
    };
  }

  private entryJson(e: Entry, nowMs: number): string {
    if (e.cached === null) e.cached = this.staticJson(e);
    const hbAge = ageSeconds(nowMs, e.hbAtMs);
    // The reported input age was true when the heartbeat left; it keeps growing until the next one.
    const inputAge = this.inputAge(e, nowMs);
    const { status, receivingInput } = this.statusOf(e, nowMs, inputAge);
    return (
      `${e.cached},"online":${this.isOnline(e, nowMs, inputAge)},"last_heartbeat_age_seconds":${hbAge}` +
      `,"last_position_age_seconds":${ageSeconds(nowMs, e.posAtMs)},"last_input_age_seconds":${inputAge}` +
      `,"status":"${status}","receiving_input":${receivingInput}}`
    );
  }

  private staticJson(e: Entry): string {
    const hb = e.hb;
    // Hand-built: this runs for every changed simulator every second. Only the id needs escaping;
    // the rest are booleans, numbers and enum values.
    const mode = hb?.mode ? `"${hb.mode}"` : 'null';
    const uptime = hb ? hb.uptime_seconds : null;
    return (
      `{"id":${JSON.stringify(e.id)},"available":${e.available === true}` +
      `,"sim_reachable":${hb ? hb.sim_reachable : null},"receiving_udp":${hb ? hb.receiving_udp : null}` +
      `,"uptime_seconds":${uptime},"uptime":${uptime},"mode":${mode},"running":${hb ? hb.running : null}` +
      `,"lat":${round(e.lat, 6)},"lon":${round(e.lon, 6)},"altitude_ft":${round(e.altitude_ft, 1)}` +
      `,"speed_kts":${round(e.speed_kts, 1)},"heading":${round(e.heading, 1)}` +
      `,"simulator_ip":${hb?.simulator_ip == null ? null : JSON.stringify(hb.simulator_ip)}`
    );
  }

  private entry(id: string, create = true): Entry | null {
    const e = this.entries.get(id);
    if (e) return e;
    if (!create) return null;
    if (this.order.length >= this.max) {
      if (!this.overflowReported) {
        this.overflowReported = true;
        this.opts.onOverflow?.(id);
      }
      return null;
    }
    return this.add(id, false);
  }

  private add(id: string, expected: boolean): Entry {
    const existing = this.entries.get(id);
    if (existing) return existing;
    const e: Entry = {
      id,
      expected,
      available: null,
      hb: null,
      hbAtMs: null,
      posAtMs: null,
      lat: null,
      lon: null,
      altitude_ft: null,
      speed_kts: null,
      heading: null,
      cached: null,
    };
    this.entries.set(id, e);
    this.order.push(e);
    return e;
  }
}
