import { EventEmitter } from 'node:events';
import type { simulator } from '@outpost/contracts';
import type { Clock, Logger } from '@outpost/runtime';
import { Engine, type EngineRates, type EngineState } from '../domain/engine.js';
import { parseReceiverLine } from '../domain/receiver-parse.js';
import { validateStart } from '../domain/start-validation.js';
import { startTicker, type Ticker } from '../domain/ticker.js';
import { StartError } from '../io/start-error.js';
import { emitEpoch } from './epoch.js';
import { ReceiverStats } from './receiver-stats.js';
import { planRun, RunOutputs } from './run-outputs.js';
import { ServiceError } from './service-error.js';
import {
  activeMode,
  applyModeFlags,
  defaultSettings,
  type NetworkSettings,
  type Settings,
  type SettingsDefaults,
} from './settings.js';

type Airport = simulator.Airport;

/** A receiver feed older than this no longer drives the outputs (a stale fix is worse than none). */
export const RECEIVER_STALE_MS = 5000;

export interface SimulatorServiceOptions {
  clock: Clock;
  logger: Logger;
  start: { lat: number; lon: number; altitude_ft: number; speed_kts: number; heading: number };
  rates: EngineRates;
  defaults: SettingsDefaults;
  efbPort: number;
  listenHost: string;
  lookupAirport: (icao: string) => Airport | undefined;
}

export interface PositionData extends EngineState {
  airport_icao: string | null;
  receiving: boolean | null;
  timestamp_ms: number;
}

export interface SimulatorEvents {
  status: [Record<string, unknown>];
  nmea: [string[]];
  position: [PositionData];
}

/**
 * The emulator: settings, the engine, the 1 Hz run loop and the outputs of the current run.
 * Transport-free (the gateway and the MQTT wiring listen to its events).
 */
export class SimulatorService extends EventEmitter<SimulatorEvents> {
  private settings: Settings;
  private readonly engine: Engine;
  private airportIcao: string | null = null;
  private run: RunOutputs | null = null;
  private ticker: Ticker | null = null;
  private starting = false;
  private banner: string | null = null;
  private readonly outputErrors: { usb: string | null; sender: string | null } = { usb: null, sender: null };
  private stats = new ReceiverStats();
  private startedAt: number | null = null;
  private wasReceiving = false;
  private badLogAt = 0;
  private readonly log: Logger;

  constructor(private readonly opts: SimulatorServiceOptions) {
    super();
    this.log = opts.logger.child({ component: 'emulator' });
    this.settings = defaultSettings(opts.defaults);
    this.engine = new Engine(opts.start, opts.rates, opts.clock.now());
  }

  get running(): boolean {
    return this.run !== null;
  }

  status(): Record<string, unknown> {
    const now = this.opts.clock.now();
    const s = this.engine.state();
    const plan = this.run?.plan;
    return {
      running: this.running,
      starting: this.starting,
      mode: activeMode(this.settings.modes),
      modes: { ...this.settings.modes },
      nmea: { ...this.settings.nmea },
      network: { ...this.settings.network, efb_target_ips: [...this.settings.network.efb_target_ips] },
      serial: { ...this.settings.serial },
      airport_icao: this.airportIcao,
      lat: s.lat,
      lon: s.lon,
      altitude_ft: s.altitude_ft,
      speed_kts: s.speed_kts,
      heading: s.heading,
      target_altitude_ft: s.target_altitude_ft,
      target_speed_kts: s.target_speed_kts,
      target_heading: s.target_heading,
      banner: this.currentBanner(),
      output_errors: { ...this.outputErrors },
      started_at: this.startedAt === null ? null : new Date(this.startedAt).toISOString(),
      uptime_seconds: this.startedAt === null ? null : Math.floor((now - this.startedAt) / 1000),
      receiver: {
        listening: this.run?.listener !== null && this.run?.listener !== undefined,
        protocol: this.settings.network.protocol,
        port: this.run?.listener?.port ?? this.settings.network.listen_port,
        ...this.stats.snapshot(now, RECEIVER_STALE_MS),
      },
      outputs: this.run ? { plan, ...this.run.describe() } : null,
    };
  }

  setModes(update: simulator.ModeFlags): Record<string, unknown> {
    this.refuseWhileRunning('the operating mode');
    const next = applyModeFlags(this.settings.modes, update);
    if (typeof next === 'string') throw new ServiceError(422, next);
    this.settings.modes = next;
    return this.changed({ mode: activeMode(next), modes: { ...next } });
  }

  setNetwork(update: simulator.NetworkConfig): Record<string, unknown> {
    this.refuseWhileRunning('the network settings');
    const next: NetworkSettings = { ...this.settings.network };
    for (const [k, v] of Object.entries(update)) {
      if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = Array.isArray(v) ? [...v] : v;
    }
    this.settings.network = next;
    return this.changed({ network: { ...next } });
  }

  /** Sentence selection applies from the next second, even while running. */
  setNmea(update: simulator.NmeaSelection): Record<string, unknown> {
    for (const [k, v] of Object.entries(update)) {
      if (typeof v === 'boolean') (this.settings.nmea as Record<string, boolean>)[k] = v;
    }
    return this.changed({ nmea: { ...this.settings.nmea } });
  }

  setSerial(update: { device?: string | null; baudrate?: number }): Record<string, unknown> {
    this.refuseWhileRunning('the serial settings');
    if (update.device !== undefined) this.settings.serial.device = update.device;
    if (update.baudrate !== undefined) this.settings.serial.baudrate = update.baudrate;
    return this.changed({ serial: { ...this.settings.serial } });
  }

  /** POST /api/position. Airport selection jumps there at the field elevation; other values ramp. */
  setPosition(update: simulator.PositionUpdate): Record<string, unknown> {
    let airport: Airport | undefined;
    if (update.airport_icao !== undefined) {
      airport = this.opts.lookupAirport(update.airport_icao);
      if (!airport) throw new ServiceError(404, `Airport ${update.airport_icao.toUpperCase()} not found`);
    }
    if (airport) {
      this.airportIcao = airport.icao;
      this.engine.jumpTo({ lat: airport.lat, lon: airport.lon, altitude_ft: airport.elevation_ft });
    }
    const { airport_icao: _ignored, ...values } = update;
    this.engine.setTargets(values);
    const s = this.engine.state();
    return this.changed({
      airport_icao: this.airportIcao,
      lat: s.lat,
      lon: s.lon,
      altitude_ft: s.altitude_ft,
      speed_kts: s.speed_kts,
      heading: s.heading,
      target_altitude_ft: s.target_altitude_ft,
      target_speed_kts: s.target_speed_kts,
      target_heading: s.target_heading,
    });
  }

  /** The start messages of the current settings (empty: Start may proceed). */
  validationMessages(): string[] {
    const s = this.settings;
    return validateStart({
      modes: s.modes,
      airport_icao: this.airportIcao,
      serial_device: s.serial.device,
      network: s.network,
    });
  }

  async start(): Promise<Record<string, unknown>> {
    if (this.running) throw new ServiceError(409, 'The emulator is already running');
    if (this.starting) throw new ServiceError(409, 'The emulator is already starting');
    const messages = this.validationMessages();
    if (messages.length > 0) throw new ServiceError(422, messages.join('; '), { messages });
    const plan = planRun(this.settings);
    if (!plan) throw new ServiceError(422, 'Select an operating mode');
    this.starting = true;
    this.banner = null;
    this.stats = new ReceiverStats();
    this.outputErrors.usb = null;
    this.outputErrors.sender = null;
    try {
      this.run = await RunOutputs.open(plan, this.settings, {
        clock: this.opts.clock,
        logger: this.opts.logger,
        efbPort: this.opts.efbPort,
        listenHost: this.opts.listenHost,
        onOutputStatus: (output, error) => {
          this.outputErrors[output] = error;
          this.changed({ banner: this.currentBanner(), output_errors: { ...this.outputErrors } });
        },
        onMessage: (text, from) => this.onReceived(text, from),
        onOversize: () => {
          if (this.settings.network.protocol === 'udp') this.stats.lastUdpMs = this.opts.clock.now();
          this.stats.tooLong();
        },
      });
    } catch (err) {
      this.starting = false;
      this.banner = err instanceof StartError ? err.banner : `Cannot start: ${(err as Error).message}`;
      this.log.warn({ banner: this.banner }, 'start failed');
      this.changed({ running: false, starting: false, banner: this.banner });
      throw new ServiceError(409, this.banner, { banner: this.banner });
    }
    this.starting = false;
    const now = this.opts.clock.now();
    this.startedAt = now;
    this.wasReceiving = false;
    this.engine.resetTime(now);
    this.ticker = startTicker(
      this.opts.clock,
      (t) => this.onTick(t),
      1000,
      (err) => this.log.error({ err }, 'tick failed'),
    );
    this.log.info({ mode: plan.mode, plan }, 'emulator started');
    return this.changed({
      running: true,
      starting: false,
      banner: null,
      mode: plan.mode,
      started_at: new Date(now).toISOString(),
    });
  }

  async stop(): Promise<Record<string, unknown>> {
    this.ticker?.stop();
    this.ticker = null;
    const run = this.run;
    this.run = null;
    this.startedAt = null;
    this.outputErrors.usb = null;
    this.outputErrors.sender = null;
    if (run) {
      await run.close();
      this.log.info('emulator stopped');
    }
    return this.changed({ running: false, banner: this.currentBanner() });
  }

  async close(): Promise<void> {
    await this.stop();
    this.removeAllListeners();
  }

  /** What the 1 Hz heartbeat to the fleet dashboard reports. */
  heartbeatStatus() {
    const s = this.engine.state();
    const fix = this.run !== null && (this.run.plan.generates || this.stats.lastInputMs !== null);
    return {
      mode: activeMode(this.settings.modes),
      running: this.running,
      lat: fix ? s.lat : null,
      lon: fix ? s.lon : null,
      altitude_ft: fix ? s.altitude_ft : null,
      lastInputAtMs: this.stats.lastInputMs,
      lastUdpAtMs: this.stats.lastUdpMs,
    };
  }

  private onReceived(text: string, from: string): void {
    const now = this.opts.clock.now();
    if (this.run?.listener?.protocol === 'udp') this.stats.lastUdpMs = now;
    const result = parseReceiverLine(text);
    if (!result.ok) {
      this.stats.rejected(result.reason);
      // A flood of garbage must not become a flood of log lines.
      if (now - this.badLogAt > 60_000) {
        this.badLogAt = now;
        this.log.warn(
          { from, reason: result.reason, bad_lines: this.stats.badLines },
          'receiver dropped a bad line',
        );
      }
      return;
    }
    this.stats.accepted(result.format, from, now);
    const p = result.position;
    this.engine.jumpTo({
      lat: p.lat,
      lon: p.lon,
      altitude_ft: p.altitude_ft,
      speed_kts: p.speed_kts,
      heading: p.heading,
    });
    this.engine.resetTime(now);
    const run = this.run;
    if (run?.retransmit && run.retransmitTarget) {
      run.retransmit.send(`${text.trimEnd()}\n`, [run.retransmitTarget]);
    }
  }

  private onTick(now: number): void {
    const run = this.run;
    if (!run) return;
    const plan = run.plan;
    let receiving: boolean | null = null;
    let state: EngineState;
    if (plan.generates) {
      state = this.engine.tick(now);
    } else {
      // Between messages the last received fix is held, not dead-reckoned.
      state = this.engine.state();
      receiving = this.stats.lastInputMs !== null && now - this.stats.lastInputMs <= RECEIVER_STALE_MS;
      if (receiving !== this.wasReceiving) {
        this.wasReceiving = receiving;
        this.changed({ receiver: this.status().receiver });
      }
    }
    if (plan.generates || receiving === true) {
      this.emit('nmea', emitEpoch(run, this.settings, state, now));
    }
    this.emit('position', { ...state, airport_icao: this.airportIcao, receiving, timestamp_ms: now });
  }

  private currentBanner(): string | null {
    return this.banner ?? this.outputErrors.usb ?? this.outputErrors.sender ?? null;
  }

  private refuseWhileRunning(what: string): void {
    if (this.running || this.starting) {
      throw new ServiceError(409, `Stop the emulator before changing ${what}`);
    }
  }

  private changed(partial: Record<string, unknown>): Record<string, unknown> {
    this.emit('status', partial);
    return partial;
  }
}
