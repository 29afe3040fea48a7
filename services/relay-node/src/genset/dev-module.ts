import type { Clock } from '@outpost/runtime/clock';
import { FAMILIES } from './models.js';
import {
  ENGINE_STATE,
  IDENT,
  IDENT_BLOCK,
  LOAD_PERCENT,
  PAGE4,
  PAGE4_BLOCK,
  PAGE7,
  PAGE7_BLOCK,
  SCF_FLAGS_BLOCK,
  SCF_KEY_REGISTER,
  TOTAL_POWER_W,
  type RegisterDef,
} from './registers.js';
import { GensetReadError, ILLEGAL_DATA_ADDRESS, type RegisterIo } from './transport.js';

/**
 * GENSET_TRANSPORT=dev: a DSE 7420 MkII in Auto that lives in the relay node's memory, so the whole
 * path (reader, bus message, controller, console card, Home Assistant) can be seen without a module.
 * It answers the same GenComm registers a real one does, through the same decoder, and follows the
 * relay as an engine on a remote start input would: relay ON, pre-start for 2 s, warming up until
 * 10 s, then running with a plausible 230 V / 50 Hz load, the coolant warming and the fuel falling;
 * relay OFF, stopped. Its run-time meter and start counter go on from made-up readings.
 */

const MODEL_NUMBER = 32846; // 7420 MkII in the model table (models.ts)
const PRE_START_MS = 2_000;
const WARM_UP_MS = 10_000;
/** Oil temperature is not fitted: GenComm's "unimplemented" for a signed 16-bit register (its top value), read as unknown. */
const UNIMPLEMENTED_S16 = 0x7fff;
/** Function 33, telemetry stop, among page 16's flags (bit 14 of the third register, as on real modules). */
const TELEMETRY_STOP_FLAGS = [0, 0, 0x4000, 0, 0, 0, 0, 0];

const ANSWERED: readonly { start: number; count: number }[] = [
  IDENT_BLOCK,
  PAGE4_BLOCK,
  { start: ENGINE_STATE.address, count: 1 },
  { start: TOTAL_POWER_W.address, count: 2 },
  { start: LOAD_PERCENT.address, count: 1 },
  PAGE7_BLOCK,
  SCF_FLAGS_BLOCK,
  { start: FAMILIES.dse_7xxx_mkii.alarmStart, count: FAMILIES.dse_7xxx_mkii.alarmRegisters },
];

export class DevGensetModule implements RegisterIo {
  private runningSince: number | null = null;
  private runMsBefore = 1_234 * 3_600_000;
  private starts = 412;
  private fuelPercent = 78;
  private coolantC = 24;
  private lastAt: number;
  /** The telemetry stop writes it received, for whoever wants to see the stop path work. */
  readonly writes: { address: number; values: number[] }[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly relayOn: () => boolean,
  ) {
    this.lastAt = clock.now();
  }

  async readHolding(start: number, count: number): Promise<number[]> {
    if (!ANSWERED.some((b) => start >= b.start && start + count <= b.start + b.count)) {
      throw new GensetReadError('exception', `illegal data address ${start}`, ILLEGAL_DATA_ADDRESS);
    }
    const regs = this.registers();
    return Array.from({ length: count }, (_, i) => regs.get(start + i) ?? 0);
  }

  async writeHolding(start: number, values: readonly number[]): Promise<void> {
    if (start !== SCF_KEY_REGISTER || values.length !== 2) {
      throw new GensetReadError('exception', `illegal data address ${start}`, ILLEGAL_DATA_ADDRESS);
    }
    this.writes.push({ address: start, values: [...values] });
  }

  async close(): Promise<void> {}

  /** Moves the engine on to now, then lays its values out as GenComm registers. */
  private registers(): Map<number, number> {
    const now = this.clock.now();
    const dt = Math.max(0, now - this.lastAt) / 1000;
    this.lastAt = now;
    if (this.relayOn() && this.runningSince === null) {
      this.runningSince = now;
      this.starts += 1;
    } else if (!this.relayOn() && this.runningSince !== null) {
      this.runMsBefore += this.engineMs(now);
      this.runningSince = null;
    }
    const ms = this.runMs(now);
    const turning = this.runningSince !== null && ms >= PRE_START_MS;
    const loaded = turning && ms >= WARM_UP_MS;
    // The coolant warms toward 82 °C while it runs and cools toward 24 °C after; about 1 % fuel in 6 min.
    const target = turning ? 82 : 24;
    this.coolantC += (target - this.coolantC) * Math.min(1, dt / 300);
    if (turning) this.fuelPercent = Math.max(0, this.fuelPercent - dt / 360);

    const regs = new Map<number, number>();
    const put = (def: RegisterDef, value: number) => {
      const raw = Math.round(value * def.divisor);
      if (def.width === 'u32' || def.width === 's32') {
        const u = raw < 0 ? raw + 2 ** 32 : raw;
        regs.set(def.address, Math.floor(u / 65536));
        regs.set(def.address + 1, u % 65536);
      } else regs.set(def.address, raw < 0 ? raw + 65536 : raw);
    };
    put(IDENT.manufacturerCode, 1);
    put(IDENT.modelNumber, MODEL_NUMBER);
    put(IDENT.serial, 1_000_742);
    put(IDENT.controlMode, 1); // auto
    put(PAGE4.oilPressureKpa, turning ? 380 : 0);
    put(PAGE4.coolantTemperatureC, Math.round(this.coolantC));
    regs.set(PAGE4.oilTemperatureC.address, UNIMPLEMENTED_S16);
    put(PAGE4.fuelLevelPercent, Math.round(this.fuelPercent));
    put(PAGE4.batteryVoltageV, turning ? 13.8 : 12.7);
    put(PAGE4.engineSpeedRpm, turning ? 1500 : 0);
    put(PAGE4.frequencyHz, turning ? 50 : 0);
    const phaseW = loaded ? 1840 : 0;
    for (const v of PAGE4.voltageV) put(v, turning ? 230.4 : 0);
    for (const a of PAGE4.currentA) put(a, loaded ? 8 : 0);
    for (const w of PAGE4.powerW) put(w, phaseW);
    put(ENGINE_STATE, this.runningSince === null ? 0 : ms < PRE_START_MS ? 1 : loaded ? 3 : 2);
    put(TOTAL_POWER_W, phaseW * 3);
    put(LOAD_PERCENT, loaded ? 32 : 0);
    // The module's meter counts while the engine turns, not during pre-start; about 5.5 kW on average.
    const runHours = (this.runMsBefore + this.engineMs(now)) / 3_600_000;
    put(PAGE7.engineRunTimeS, Math.floor(runHours * 3600));
    put(PAGE7.energyKwh, runHours * 5.5);
    put(PAGE7.starts, this.starts);
    for (const [i, flags] of TELEMETRY_STOP_FLAGS.entries()) regs.set(SCF_FLAGS_BLOCK.start + i, flags);
    return regs;
  }

  private engineMs(now: number): number {
    return Math.max(0, this.runMs(now) - PRE_START_MS);
  }

  private runMs(now: number): number {
    return this.runningSince === null ? 0 : Math.max(0, now - this.runningSince);
  }
}
