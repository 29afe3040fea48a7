import { type ConditionsConfig, SOURCE_NAMES, type SourceName } from '@outpost/contracts/conditions';
import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import { sourceTopicInLane } from '@outpost/contracts/topic-routes';
import { HttpError } from '@outpost/runtime';
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
      /** MQTT_TOPIC_PREFIX: the services' topics, not a source's. */
      topicPrefix?: string;
      /** Why a broker URL may not be reached (OUTBOUND_ALLOWED_NETWORKS), or null. */
      outboundRefusal?: (url: string) => Promise<string | null>;
    },
  ) {}

  /** Finds the GXs on a broker by their retained serial (set by the MQTT sources once attached). */
  portalFinder: ((brokerUrl?: string) => Promise<string[]>) | null = null;

  /**
   * A configuration made ready to save, or a 422 naming the field: a topic under the bus prefix that
   * no route lets the controller read, a broker the outbound policy refuses, and a Victron source
   * without a portal id gets the one GX found on its broker (none or several: refused, listed).
   */
  async prepare(config: ConditionsConfig): Promise<ConditionsConfig> {
    const prefix = this.deps.topicPrefix ?? DEFAULT_PREFIX;
    const problems: string[] = [];
    const found = new Map<string, Promise<string[]>>();
    for (const name of SOURCE_NAMES) {
      const src = config.sources[name];
      if (!src || src.type === 'rest') continue;
      const at = `sources.${name}`;
      const topic =
        src.type === 'mqtt'
          ? src.topic
          : src.type === 'ha_statestream'
            ? `${src.base_topic}/x/x/state`
            : null;
      if (topic !== null && !sourceTopicInLane(topic, prefix)) {
        const field = src.type === 'mqtt' ? 'topic' : 'base_topic';
        problems.push(
          `${at}.${field}: topics under the bus prefix ${prefix}/ belong to the services; a source cannot read them`,
        );
      }
      if (src.broker_url !== undefined) {
        const why = await this.deps.outboundRefusal?.(src.broker_url);
        if (why) problems.push(`${at}.broker_url: ${why}`);
      }
    }
    if (problems.length > 0) throw new HttpError(422, problems.join('; '));
    const sources = { ...config.sources };
    for (const name of SOURCE_NAMES) {
      const src = sources[name];
      if (src?.type !== 'victron_gx' || src.portal_id !== undefined) continue;
      const key = src.broker_url ?? '';
      if (!this.portalFinder) throw new HttpError(422, `sources.${name}.portal_id: give the GX's portal id`);
      if (!found.has(key)) found.set(key, this.portalFinder(src.broker_url));
      let portals: string[];
      try {
        portals = await (found.get(key) as Promise<string[]>);
      } catch (err) {
        throw new HttpError(
          422,
          `sources.${name}.portal_id: not given, and the broker could not be asked for it (${(err as Error).message})`,
        );
      }
      if (portals.length === 0)
        throw new HttpError(
          422,
          `sources.${name}.portal_id: not given, and no GX on that broker published N/<portal id>/system/0/Serial`,
        );
      if (portals.length > 1)
        throw new HttpError(
          422,
          `sources.${name}.portal_id: several GXs on that broker (${portals.join(', ')}); give one`,
        );
      sources[name] = { ...src, portal_id: portals[0] as string };
    }
    return { ...config, sources };
  }

  /** A GX showed life: its sources' values still hold (it publishes only changes). */
  alive(names: SourceName[]): void {
    this.deps.controller.conditions.alive(names);
  }

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
