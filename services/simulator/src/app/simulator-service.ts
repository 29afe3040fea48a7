import { EventEmitter } from 'node:events';
import type { simulator } from '@outpost/contracts';
import type { Clock, Logger } from '@outpost/runtime';
import { startTicker, type Ticker } from '@outpost/runtime/ticker';
import { Engine, type EngineRates, type EngineState } from '../domain/engine.js';
import { validateStart } from '../domain/start-validation.js';
import { StartError } from '../io/start-error.js';
import { emitEpoch, emitNoFix } from './epoch.js';
import { Autopilot } from './autopilot.js';
import { engineRates, ratesView } from './rates.js';
import { RECEIVER_STALE_MS, ReceiverFeed } from './receiver-feed.js';
import { planRun, RunOutputs } from './run-outputs.js';
import { isProblem, problemError, resolveLineUp } from './line-up.js';
import { ServiceError } from './service-error.js';
import {
  applyToRun,
  type SettingsChange,
  modesChange,
  networkChange,
  nmeaChange,
  serialChange,
} from './settings-changes.js';
import {
  activeMode,
  cloneSettings,
  defaultSettings,
  type Settings,
  type SettingsDefaults,
} from './settings.js';
import type { AutoStartState, SimulatorEvents } from './simulator-events.js';

export { RECEIVER_STALE_MS } from './receiver-feed.js';
export type { AutoStartState, PositionData, SimulatorEvents } from './simulator-events.js';

type Airport = simulator.Airport;

export interface SimulatorServiceOptions {
  clock: Clock;
  logger: Logger;
  start: { lat: number; lon: number; altitude_ft: number; speed_kts: number; heading: number };
  rates: EngineRates;
  defaults: SettingsDefaults;
  efbPort: number;
  gdl90Port: number;
  listenHost: string;
  receiverTcp?: { idleTimeoutMs: number; maxPerIp: number };
  lookupAirport: (icao: string) => Airport | undefined;
  /** ALLOW_BROADCAST_TARGETS: tablets and UDP targets may be broadcast or multicast addresses. */
  allowBroadcastTargets?: boolean;
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
  /** A flight plan or a replayed track; it drives the position while the mode generates one. */
  readonly autopilot: Autopilot;
  private ticker: Ticker | null = null;
  private starting = false;
  private banner: string | null = null;
  private readonly outputErrors: { usb: string | null; sender: string | null } = { usb: null, sender: null };
  private readonly feed: ReceiverFeed;
  private startedAt: number | null = null;
  private wasReceiving = false;
  /** Set when AUTO_START_* starts without an airport: DEFAULT_LAT/DEFAULT_LON is the start position. */
  private startPositionGiven = false;
  private autoStart: AutoStartState | null = null;
  /** Settings changes run one at a time: a change while running may open sockets. */
  private changing: Promise<unknown> = Promise.resolve();
  private readonly log: Logger;

  constructor(private readonly opts: SimulatorServiceOptions) {
    super();
    this.log = opts.logger.child({ component: 'emulator' });
    this.settings = defaultSettings(opts.defaults);
    this.engine = new Engine(opts.start, opts.rates, opts.clock.now());
    this.feed = new ReceiverFeed(this.engine, this.log);
    this.autopilot = new Autopilot({
      clock: opts.clock,
      lookupAirport: opts.lookupAirport,
      onTakeover: (state, icao) => {
        this.engine.place(state);
        this.airportIcao = icao;
        // A route or track that starts at coordinates is as good a start position as an airport.
        this.startPositionGiven = true;
      },
      onChange: () => this.changed(this.status()),
    });
  }

  get running(): boolean {
    return this.run !== null;
  }

  status(): Record<string, unknown> {
    const now = this.opts.clock.now();
    const plan = this.run?.plan;
    return {
      running: this.running,
      starting: this.starting,
      mode: activeMode(this.settings.modes),
      modes: { ...this.settings.modes },
      nmea: { ...this.settings.nmea },
      network: { ...this.settings.network, efb_target_ips: [...this.settings.network.efb_target_ips] },
      serial: { ...this.settings.serial },
      ...this.positionView(),
      rates: ratesView(this.engine.rates()),
      banner: this.currentBanner(),
      auto_start: this.autoStartStatus(),
      output_errors: { ...this.outputErrors },
      started_at: this.startedAt === null ? null : new Date(this.startedAt).toISOString(),
      uptime_seconds: this.startedAt === null ? null : Math.floor((now - this.startedAt) / 1000),
      receiver: {
        listening: this.run?.listener !== null && this.run?.listener !== undefined,
        protocol: this.settings.network.protocol,
        port: this.run?.listener?.port ?? this.settings.network.listen_port,
        ...this.feed.stats.snapshot(now, RECEIVER_STALE_MS),
      },
      outputs: this.run ? { plan, ...this.run.describe() } : null,
      flight_plan: this.autopilot.flightView(),
      replay: this.autopilot.replayView(),
    };
  }

  /** Mode changes while running move the run to the new mode, keeping the outputs both modes share. */
  setModes(update: simulator.ModeFlags): Promise<Record<string, unknown>> {
    return this.change(modesChange(update));
  }

  /**
   * EFB targets, the EFB name, the sender's UDP target and the retransmit target apply from the next
   * line; a new listen port, protocol or TCP target reopens only that output.
   */
  setNetwork(update: simulator.NetworkConfig): Promise<Record<string, unknown>> {
    return this.change(networkChange(update, this.opts.allowBroadcastTargets === true));
  }

  /** Sentence selection applies from the next second, even while running. */
  setNmea(update: simulator.NmeaSelection): Promise<Record<string, unknown>> {
    return this.change(nmeaChange(update));
  }

  /** A new device reopens only the USB output; a new baud rate is set on the open port. */
  setSerial(update: { device?: string | null; baudrate?: number }): Promise<Record<string, unknown>> {
    return this.change(serialChange(update));
  }

  /** The ramp rates, from the next tick. */
  setRates(update: simulator.RampRates): Record<string, unknown> {
    this.engine.setRates(engineRates(update));
    return this.changed({ rates: ratesView(this.engine.rates()) });
  }

  /** AUTO_START_* without an airport: the configured start coordinates count as the chosen position. */
  useConfiguredStartPosition(): void {
    this.startPositionGiven = true;
  }

  setAutoStartState(state: AutoStartState | null): void {
    this.autoStart = state;
    this.changed({ auto_start: this.autoStartStatus() });
  }

  /** POST /api/position. Airport selection jumps there at the field elevation; other values ramp. */
  setPosition(update: simulator.PositionUpdate): Record<string, unknown> {
    this.autopilot.takeBack();
    let airport: Airport | undefined;
    if (update.airport_icao !== undefined) {
      airport = this.opts.lookupAirport(update.airport_icao);
      if (!airport) throw new ServiceError(404, `Airport ${update.airport_icao.toUpperCase()} not found`);
    }
    if (airport) {
      this.airportIcao = airport.icao;
      this.engine.jumpTo({ lat: airport.lat, lon: airport.lon, altitude_ft: airport.elevation_ft });
      if (airport.elevation_known === false) {
        this.log.info({ icao: airport.icao }, 'elevation unknown, starting at 0 ft');
      }
    }
    const { airport_icao: _ignored, ...values } = update;
    this.engine.setTargets(values);
    return this.changed(this.positionView());
  }

  /** POST /api/position/runway: on the threshold, stopped on the ground, heading down the runway. */
  lineUp(req: simulator.LineUpRequest): Record<string, unknown> {
    const at = resolveLineUp(req.airport, req.runway, this.opts.lookupAirport);
    if (isProblem(at)) throw problemError(at);
    this.autopilot.takeBack();
    this.airportIcao = at.icao;
    this.engine.jumpTo({ ...at, speed_kts: 0 });
    return this.changed(this.positionView());
  }

  /** The position part of the status: where the aircraft is and the targets it steers for. */
  private positionView() {
    const s = this.engine.state();
    return {
      airport_icao: this.airportIcao,
      lat: s.lat,
      lon: s.lon,
      altitude_ft: s.altitude_ft,
      speed_kts: s.speed_kts,
      heading: s.heading,
      target_altitude_ft: s.target_altitude_ft,
      target_speed_kts: s.target_speed_kts,
      target_heading: s.target_heading,
    };
  }

  /** The start messages of the current settings (empty: Start may proceed). */
  validationMessages(settings: Settings = this.settings): string[] {
    return validateStart({
      modes: settings.modes,
      airport_icao: this.airportIcao,
      position_given: this.startPositionGiven,
      serial_device: settings.serial.device,
      network: settings.network,
    });
  }

  async start(): Promise<Record<string, unknown>> {
    if (this.running) throw new ServiceError(409, 'The emulator is already running');
    if (this.starting) throw new ServiceError(409, 'The emulator is already starting');
    const messages = this.validationMessages();
    if (messages.length > 0) throw new ServiceError(422, messages.join('; '), { messages });
    const plan = planRun(this.settings);
    if (!plan)
      throw new ServiceError(422, 'Select an operating mode', { messages: ['Select an operating mode'] });
    this.starting = true;
    this.banner = null;
    this.feed.reset();
    this.outputErrors.usb = null;
    this.outputErrors.sender = null;
    try {
      this.run = await RunOutputs.open(plan, this.settings, {
        clock: this.opts.clock,
        logger: this.opts.logger,
        efbPort: this.opts.efbPort,
        gdl90Port: this.opts.gdl90Port,
        listenHost: this.opts.listenHost,
        ...(this.opts.receiverTcp ? { receiverTcp: this.opts.receiverTcp } : {}),
        onOutputStatus: (output, error) => {
          this.outputErrors[output] = error;
          this.changed({ banner: this.currentBanner(), output_errors: { ...this.outputErrors } });
        },
        onMessage: (text, from) => this.feed.receive(text, from, this.opts.clock.now(), this.run),
        onOversize: () => {
          if (this.settings.network.protocol === 'udp') this.feed.stats.lastUdpMs = this.opts.clock.now();
          this.feed.stats.tooLong();
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
    this.autopilot.resetTime(now);
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
    // A receiver's held fix is reported only while its feed is fresh: a dead feed has no position.
    const fix =
      this.run !== null && (this.run.plan.generates || this.feed.receivingAt(this.opts.clock.now()));
    return {
      mode: activeMode(this.settings.modes),
      running: this.running,
      lat: fix ? s.lat : null,
      lon: fix ? s.lon : null,
      altitude_ft: fix ? s.altitude_ft : null,
      lastInputAtMs: this.feed.stats.lastInputMs,
      lastUdpAtMs: this.feed.stats.lastUdpMs,
    };
  }

  private onTick(now: number): void {
    const run = this.run;
    if (!run) return;
    const plan = run.plan;
    let receiving: boolean | null = null;
    let state: EngineState;
    if (plan.generates) {
      const piloted = this.autopilot.tick(now);
      state = piloted ? this.engine.place(piloted) : this.engine.tick(now);
    } else {
      // Between messages the last received fix is held, not dead-reckoned.
      state = this.engine.state();
      receiving = this.feed.receivingAt(now);
      if (receiving !== this.wasReceiving) {
        this.wasReceiving = receiving;
        this.changed({ receiver: this.status().receiver });
      }
    }
    if (plan.generates || receiving === true) {
      this.emit('nmea', emitEpoch(run, this.settings, state, now));
    } else {
      emitNoFix(run, this.settings, now);
    }
    const live = this.autopilot.live();
    this.emit('position', {
      ...state,
      airport_icao: this.airportIcao,
      receiving,
      timestamp_ms: now,
      ...live,
    });
  }

  private currentBanner(): string | null {
    return this.banner ?? this.outputErrors.usb ?? this.outputErrors.sender ?? null;
  }

  /**
   * Applies a settings change: at once while stopped; while running, only if the emulator can keep
   * running with it, reopening just the outputs whose socket or device changes. A refused change
   * leaves every setting and output as it was.
   */
  private change({ what, mutate, report }: SettingsChange): Promise<Record<string, unknown>> {
    const task = this.changing.then(async () => {
      if (this.starting) {
        throw new ServiceError(409, `The emulator is starting; change ${what} once it has started`);
      }
      const next = cloneSettings(this.settings);
      mutate(next);
      const run = this.run;
      if (run) {
        const outputs = await applyToRun(run, next, this.validationMessages(next), this.log);
        this.settings = next;
        return this.changed({ ...report(next), outputs });
      }
      this.settings = next;
      return this.changed(report(next));
    });
    this.changing = task.catch(() => undefined);
    return task;
  }

  autoStartStatus(): AutoStartState | null {
    if (!this.autoStart) return null;
    // Once running (at boot or started later by hand) there is nothing left to explain.
    return this.running ? { ...this.autoStart, state: 'running', reason: null } : { ...this.autoStart };
  }

  private changed(partial: Record<string, unknown>): Record<string, unknown> {
    this.emit('status', partial);
    return partial;
  }
}
