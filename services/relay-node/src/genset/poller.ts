import { genset } from '@outpost/contracts';
import { type Clock, TimerSlot } from '@outpost/runtime/clock';
import type { LogSink } from '../domain/relay-node.js';
import { decodePoll, type GensetReading } from './decode.js';
import { readPoll, serialized } from './reader.js';
import { readMapped } from './register-map.js';
import type { GensetSettings } from './settings.js';
import { writeTelemetryStop, type TelemetryStopResult } from './telemetry-stop.js';
import { classify, type RegisterIo } from './transport.js';

/**
 * Polls the module on the clock and keeps the `genset` message. A failed poll keeps the last values
 * until the stale time has passed without an answer; then every value is null, `stale` is set and the
 * `genset_unreachable` warning raised. Silence is never read as "stopped": `running` goes null with
 * everything else.
 */

export interface GensetPollerOptions {
  io: RegisterIo;
  settings: Pick<GensetSettings, 'transport' | 'pollMs' | 'staleMs' | 'map'>;
  clock: Clock;
  log: LogSink;
  /** Every change of the message's values (updated_at and last_read_at aside). */
  onChange?: (state: genset.GensetState) => void;
}

export class GensetPoller {
  private readonly io: RegisterIo;
  private reading: GensetReading | null = null;
  private lastOkAt: number | null = null;
  private startedAt = 0;
  private fault: genset.GensetFault | null = null;
  private stale = false;
  private interval: unknown = null;
  private inFlight: Promise<void> | null = null;
  private readonly staleSlot: TimerSlot;
  private lastKey = '';
  private stopped = false;

  constructor(private readonly o: GensetPollerOptions) {
    this.io = serialized(o.io);
    this.staleSlot = new TimerSlot(o.clock, () => this.checkStale());
  }

  start(): void {
    this.startedAt = this.o.clock.now();
    this.staleSlot.at(this.startedAt + this.o.settings.staleMs);
    this.interval = this.o.clock.setInterval(() => this.tick(), this.o.settings.pollMs);
    this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.o.clock.clearInterval(this.interval);
    this.staleSlot.cancel();
    await this.inFlight?.catch(() => undefined);
    await this.io.close().catch(() => undefined);
  }

  /** Starts a poll unless one is still under way (a slow module must not pile requests up). */
  tick(): void {
    if (this.inFlight || this.stopped) return;
    this.inFlight = this.poll().finally(() => {
      this.inFlight = null;
    });
  }

  /** Resolves when the poll under way, if any, has finished. */
  async settled(): Promise<void> {
    await this.inFlight;
  }

  /** The message as of now. */
  state(): genset.GensetState {
    const now = this.o.clock.now();
    const common = {
      protocol: this.o.settings.map ? ('register_map' as const) : ('dse_gencomm' as const),
      transport: this.o.settings.transport,
      reachable: this.fault === null && this.lastOkAt !== null,
      fault: this.fault,
      last_read_at: this.lastOkAt === null ? null : Math.floor(this.lastOkAt / 1000),
      updated_at: Math.floor(now / 1000),
    };
    if (this.stale) {
      return {
        ...common,
        ...genset.unknownReadings(),
        stale: true,
        warnings: ['genset_unreachable'],
        mode: null,
        engine_state: null,
        running: null,
      };
    }
    return {
      ...common,
      ...(this.reading ? structuredClone(this.reading) : genset.unknownReadings()),
      stale: false,
      warnings: [],
    };
  }

  /** The second stop path (GenComm telemetry stop), queued behind the poll under way. */
  telemetryStop(): Promise<TelemetryStopResult> {
    return writeTelemetryStop(this.io);
  }

  private async poll(): Promise<void> {
    try {
      const map = this.o.settings.map;
      const reading = map ? await readMapped(this.io, map) : decodePoll(await readPoll(this.io));
      if (this.stopped) return;
      if (this.fault !== null || this.stale) this.o.log.info({}, 'generator controller answering again');
      this.reading = reading;
      this.lastOkAt = this.o.clock.now();
      this.fault = null;
      this.stale = false;
      this.staleSlot.at(this.lastOkAt + this.o.settings.staleMs);
    } catch (err) {
      if (this.stopped) return;
      const e = classify(err);
      if (this.fault !== e.fault) {
        this.o.log.warn({ fault: e.fault, err: e.message }, 'generator controller did not answer');
      }
      this.fault = e.fault;
      this.checkStale(false);
    }
    this.emit();
  }

  /** Stale once the stale time has passed since the last answer (or since start, without one). */
  private checkStale(emit = true): void {
    const since = this.lastOkAt ?? this.startedAt;
    if (!this.stale && this.o.clock.now() - since >= this.o.settings.staleMs) {
      this.stale = true;
      this.o.log.warn(
        { stale_seconds: this.o.settings.staleMs / 1000 },
        'genset_unreachable: generator controller values unknown',
      );
    }
    if (emit) this.emit();
  }

  private emit(): void {
    const state = this.state();
    // The values, not the clock: a module that answers the same every poll is not republished.
    const { updated_at: _u, last_read_at: _l, ...rest } = state;
    const key = JSON.stringify(rest);
    if (key === this.lastKey) return;
    this.lastKey = key;
    this.o.onChange?.(state);
  }
}
