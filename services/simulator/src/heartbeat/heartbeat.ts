import type { simulator } from '@outpost/contracts';
import type { Clock } from '@outpost/runtime/clock';
import { type Pinger, parseSimulatorIp } from './pinger.js';

type SimulatorHeartbeat = simulator.SimulatorHeartbeat;
type OperatingMode = SimulatorHeartbeat['mode'];

/** A UDP packet within this window counts as "receiving". */
export const RECEIVING_WINDOW_MS = 5000;
export const HEARTBEAT_PERIOD_MS = 1000;

/** The part of a Clock the heartbeat needs. */
export type HeartbeatClock = Pick<Clock, 'now' | 'setInterval' | 'clearInterval'>;

/** What the simulator knows at the moment of a beat. */
export interface HeartbeatStatus {
  mode: OperatingMode;
  running: boolean;
  lat: number | null;
  lon: number | null;
  altitude_ft: number | null;
  /** When the receiver last accepted a position (any transport); null if never. */
  lastInputAtMs: number | null;
  /** When the last UDP packet arrived on the listen port; null if never. */
  lastUdpAtMs: number | null;
}

export interface HeartbeatOptions {
  clock: HeartbeatClock;
  publish: (hb: SimulatorHeartbeat) => Promise<void>;
  status: () => HeartbeatStatus;
  /** SIMULATOR_IP; empty or absent: sim_reachable is always false. Must be an IP literal. */
  simulatorIp?: string | null;
  /** Required when simulatorIp is set; createSystemPinger({ ip }) in production. */
  pinger?: Pinger;
  /** Process start, for uptime_seconds. */
  startedAtMs: number;
  /** The spec sends heartbeats from a rebroadcaster; true sends them in every mode. */
  allModes?: boolean;
  periodMs?: number;
  onError?: (err: unknown) => void;
}

export interface Heartbeat {
  start(): void;
  stop(): void;
  readonly started: boolean;
  /** The payload a beat at this instant would carry. */
  current(): SimulatorHeartbeat;
}

const finiteOrNull = (v: number | null, min: number, max: number): number | null =>
  v !== null && Number.isFinite(v) && v >= min && v <= max ? v : null;

/** 1 Hz `simulator/<id>/heartbeat`: reachability, UDP input, uptime, mode, position, input age. */
export function createHeartbeat(opts: HeartbeatOptions): Heartbeat {
  const ip = parseSimulatorIp(opts.simulatorIp);
  if (ip !== null && !opts.pinger) throw new Error('a pinger is required when SIMULATOR_IP is set');
  const pinger = ip !== null ? opts.pinger : undefined;
  const period = opts.periodMs ?? HEARTBEAT_PERIOD_MS;
  let timer: unknown = null;
  let publishing = false;

  const current = (): SimulatorHeartbeat => {
    const now = opts.clock.now();
    const s = opts.status();
    const ageOf = (at: number | null) => (at === null ? null : Math.max(0, now - at));
    const udpAge = ageOf(s.lastUdpAtMs);
    const inputAge = ageOf(s.lastInputAtMs);
    const lat = finiteOrNull(s.lat, -90, 90);
    const lon = finiteOrNull(s.lon, -180, 180);
    return {
      sim_reachable: pinger?.reachable() ?? false,
      receiving_udp: udpAge !== null && udpAge < RECEIVING_WINDOW_MS,
      uptime_seconds: Math.max(0, Math.floor((now - opts.startedAtMs) / 1000)),
      mode: s.mode,
      running: s.running,
      lat: lat === null || lon === null ? null : lat,
      lon: lat === null || lon === null ? null : lon,
      altitude_ft: finiteOrNull(s.altitude_ft, -1e6, 1e7),
      last_input_age_seconds: inputAge === null ? null : Math.round(inputAge / 100) / 10,
      simulator_ip: ip,
      timestamp_ms: Math.max(0, Math.round(now)),
    };
  };

  const beat = () => {
    // The probe runs in the background; this beat reports the last completed one.
    pinger?.refresh();
    let hb: SimulatorHeartbeat;
    try {
      hb = current();
    } catch (err) {
      opts.onError?.(err);
      return;
    }
    if (!opts.allModes && hb.mode !== 'rebroadcaster') return;
    // A broker that is slow to accept must not stack up beats behind it.
    if (publishing) return;
    publishing = true;
    opts
      .publish(hb)
      .catch((err: unknown) => opts.onError?.(err))
      .finally(() => {
        publishing = false;
      });
  };

  return {
    get started() {
      return timer !== null;
    },
    current,
    start() {
      if (timer !== null) return;
      timer = opts.clock.setInterval(beat, period);
      beat();
    },
    stop() {
      if (timer === null) return;
      opts.clock.clearInterval(timer);
      timer = null;
      pinger?.stop();
    },
  };
}
