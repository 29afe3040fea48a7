import { type ConditionsConfig, SOURCE_NAMES, type SourceName } from '@outpost/contracts/conditions';
import type { SqlConditionsStore } from './db/conditions-store.js';
import type { Clock } from './domain/clock.js';
import { SampleHistory } from './domain/conditions/samples.js';
import { sourceScale } from './domain/conditions/source-topics.js';
import type { GeneratorController } from './domain/generator-controller.js';
import { EMPTY_CONDITIONS } from './domain/modules/start-conditions.js';
import type { Actor } from './domain/types.js';
import type { AuditLog } from './db/audit-log.js';

/**
 * The start conditions as the gateway and the bus see them: the stored configuration, readings from
 * MQTT, REST and the dev mode, the live status, and the recent samples the console charts.
 */
export class ConditionsService {
  private readonly history = new SampleHistory();
  private readonly listeners: ((config: ConditionsConfig) => void | Promise<void>)[] = [];

  constructor(
    private readonly deps: {
      store: SqlConditionsStore;
      controller: GeneratorController;
      clock: Clock;
      audit?: AuditLog;
    },
  ) {}

  /** Loads the stored configuration into the state machine (boot). */
  async load(): Promise<void> {
    const stored = await this.deps.store.load();
    await this.deps.controller.conditions.configure(stored ?? EMPTY_CONDITIONS);
  }

  get config(): ConditionsConfig {
    return this.deps.controller.conditions.configuration;
  }

  status() {
    return this.deps.controller.conditions.status();
  }

  /** Stored first (a database failure changes nothing), then in force, then the transports follow. */
  async update(config: ConditionsConfig, actor: Actor): Promise<ConditionsConfig> {
    const previous = this.config;
    await this.deps.store.save(config, this.deps.clock.now());
    await this.deps.audit?.write({
      at: this.deps.clock.now(),
      who: actor.who,
      from: actor.from,
      action: 'conditions.update',
      details: { conditions: Object.keys(config.conditions), sources: Object.keys(config.sources) },
    });
    for (const name of SOURCE_NAMES) {
      if (JSON.stringify(previous.sources[name]) !== JSON.stringify(config.sources[name]))
        this.history.clear(name);
    }
    await this.deps.controller.conditions.configure(config);
    for (const fn of this.listeners) await fn(config);
    return config;
  }

  /** Called with each configuration in force (the MQTT sources subscribe by it). */
  onConfig(fn: (config: ConditionsConfig) => void | Promise<void>): void {
    this.listeners.push(fn);
  }

  /** A reading already in the source's units (MQTT parsing scaled it; the dev mode's fake is as given). */
  reading(name: SourceName, value: number | null): Promise<void> {
    if (this.config.sources[name]) this.history.add(name, value, this.deps.clock.now());
    return this.deps.controller.conditions.reading(name, value);
  }

  /** A value PUT to a REST source: scaled like an MQTT one. False when the source is not a REST source. */
  async restValue(name: SourceName, value: number | null): Promise<boolean> {
    const src = this.config.sources[name];
    if (src?.type !== 'rest') return false;
    await this.reading(name, value === null ? null : value * sourceScale(name, src));
    return true;
  }

  samples(name: SourceName, hours: number) {
    const from = this.deps.clock.now() - hours * 3_600_000;
    return this.history.since(name, from).map((s) => ({ at: Math.floor(s.at / 1000), value: s.value }));
  }
}
