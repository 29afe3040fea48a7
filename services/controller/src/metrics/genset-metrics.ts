import type { genset } from '@outpost/contracts';
import { Gauge, type Registry } from 'prom-client';
import type { ControllerService } from '../controller-service.js';

type Report = Extract<genset.GensetState, { stale: false }>;
type Reading = (g: Report) => number | null;

/** A value and the factor to its base unit (kPa → Pa, % → ratio, kWh → J). */
const SINGLE: [name: string, help: string, read: Reading][] = [
  ['oil_pressure_pascals', 'Oil pressure', (g) => scale(g.instruments.oil_pressure_kpa, 1000)],
  ['coolant_temperature_celsius', 'Coolant temperature', (g) => g.instruments.coolant_temperature_c],
  ['oil_temperature_celsius', 'Oil temperature', (g) => g.instruments.oil_temperature_c],
  ['fuel_level_ratio', 'Fuel level (0 to 1)', (g) => scale(g.instruments.fuel_level_percent, 0.01)],
  ['battery_volts', 'Starter battery (charge alternator) voltage', (g) => g.instruments.battery_voltage_v],
  // rpm, as node_exporter's fan speeds: a revolution per second would only confuse.
  ['engine_speed_rpm', 'Engine speed', (g) => g.instruments.engine_speed_rpm],
  ['frequency_hertz', 'Generator output frequency', (g) => g.instruments.frequency_hz],
  ['total_power_watts', 'Total output power', (g) => g.instruments.total_power_w],
  ['load_ratio', 'Load (0 to 1 of rated)', (g) => scale(g.instruments.load_percent, 0.01)],
  ['engine_run_seconds', "The module's engine run-time meter", (g) => g.accumulated.engine_run_time_s],
  ['energy_joules', "The module's energy meter", (g) => scale(g.accumulated.energy_kwh, 3.6e6)],
  ['starts', "The module's count of engine starts", (g) => g.accumulated.starts],
  ['running', 'The module says the engine runs (1) or not (0)', (g) => flag(g.running)],
];
const PHASED: [name: string, help: string, read: (g: Report) => (number | null)[]][] = [
  ['voltage_volts', 'Phase-to-neutral voltage', (g) => g.instruments.voltage_v],
  ['current_amperes', 'Phase current', (g) => g.instruments.current_a],
  ['power_watts', 'Phase power', (g) => g.instruments.power_w],
];
const LEVELS = ['warning', 'shutdown', 'electrical_trip'] as const;

function scale(v: number | null, factor: number): number | null {
  return v === null ? null : v * factor;
}
function flag(v: boolean | null): number | null {
  return v === null ? null : v ? 1 : 0;
}

/**
 * The generator's own controller at scrape time, in base units. Every value is absent while unknown
 * (no report, stale, or not implemented by the module), never 0; `controller_genset_stale` says which.
 */
export function registerGensetMetrics(registry: Registry, svc: ControllerService): void {
  const registers = [registry];
  const known = (): Report | null => {
    const g = svc.controller.genset.state;
    return g && !g.stale ? g : null;
  };
  for (const [name, help, read] of SINGLE) {
    new Gauge({
      name: `controller_genset_${name}`,
      help: `${help} (absent while unknown)`,
      registers,
      collect() {
        this.reset();
        const g = known();
        const v = g ? read(g) : null;
        // An unlabelled gauge reads 0 after a reset: removing its one series is what makes it absent.
        if (v === null) this.remove();
        else this.set(v);
      },
    });
  }
  for (const [name, help, read] of PHASED) {
    new Gauge({
      name: `controller_genset_${name}`,
      help: `${help} (absent while unknown)`,
      labelNames: ['phase'] as const,
      registers,
      collect() {
        this.reset();
        const g = known();
        if (!g) return;
        read(g).forEach((v, i) => {
          if (v !== null) this.set({ phase: `L${i + 1}` }, v);
        });
      },
    });
  }
  new Gauge({
    name: 'controller_genset_stale',
    help: 'The module has not answered the relay node within its stale time (absent before a report)',
    registers,
    collect() {
      this.reset();
      const g = svc.controller.genset.state;
      if (g) this.set(g.stale ? 1 : 0);
      else this.remove();
    },
  });
  new Gauge({
    name: 'controller_genset_alarms',
    help: 'Active alarms of the module, by level (absent while unknown)',
    labelNames: ['level'] as const,
    registers,
    collect() {
      this.reset();
      const g = known();
      if (!g) return;
      for (const level of LEVELS)
        this.set({ level }, g.alarms.active.filter((a) => a.level === level).length);
    },
  });
  new Gauge({
    name: 'controller_genset_mode',
    help: "The module's mode selector (1 for its position; absent while unknown)",
    labelNames: ['mode'] as const,
    registers,
    collect() {
      this.reset();
      const mode = known()?.mode;
      if (mode) this.set({ mode }, 1);
    },
  });
}
