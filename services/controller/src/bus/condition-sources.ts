import { type ConditionsConfig, SOURCE_NAMES, type SourceName } from '@outpost/contracts/conditions';
import { redactUrl } from '@outpost/runtime';
import mqtt, { type MqttClient } from 'mqtt';
import type { Clock } from '../domain/clock.js';
import {
  parseSourcePayload,
  sourceTopic,
  VICTRON_KEEPALIVE_MS,
  VICTRON_KEEPALIVE_REPEAT,
  victronKeepaliveTopic,
} from '../domain/conditions/source-topics.js';
import type { DomainLogger } from '../domain/types.js';

/** Where readings go: the start conditions module. */
export interface ReadingSink {
  reading(name: SourceName, value: number | null): Promise<void>;
}

const SITE = '';

interface Link {
  client: MqttClient;
  /** Owned here (another broker) or the site connection, which is only borrowed. */
  owned: boolean;
  topics: Map<string, SourceName[]>;
  portals: Set<string>;
  keepalive: unknown;
  onMessage: (topic: string, payload: Buffer) => void;
  onConnect: () => void;
}

/**
 * The start conditions' MQTT sources: subscribes to each source's topic on the site's broker or on
 * the broker its URL names, turns payloads into readings, and keeps every Victron GX publishing (its
 * keep-alive: an empty one on each connect asks for all values, then a repeat every 30 s that asks
 * for none again). A payload the source cannot read is logged and dropped.
 */
export class ConditionSources {
  private readonly links = new Map<string, Link>();
  private config: ConditionsConfig | null = null;

  constructor(
    private readonly opts: {
      /** The site broker's client (null: no broker configured; sources with their own URL still work). */
      site: MqttClient | null;
      sink: ReadingSink;
      clock: Clock;
      logger: DomainLogger;
      clientIdBase: string;
    },
  ) {}

  /** Follows a new configuration: subscribes, unsubscribes, connects and disconnects as needed. */
  async apply(config: ConditionsConfig): Promise<void> {
    this.config = config;
    const wanted = new Map<string, { topics: Map<string, SourceName[]>; portals: Set<string> }>();
    for (const name of SOURCE_NAMES) {
      const src = config.sources[name];
      if (!src || src.type === 'rest') continue;
      const topic = sourceTopic(name, src);
      if (topic === null) continue;
      const key = src.broker_url ?? SITE;
      const w = wanted.get(key) ?? { topics: new Map(), portals: new Set() };
      wanted.set(key, w);
      w.topics.set(topic, [...(w.topics.get(topic) ?? []), name]);
      if (src.type === 'victron_gx') w.portals.add(src.portal_id);
    }
    for (const [key, link] of [...this.links]) {
      if (!wanted.has(key)) await this.drop(key, link);
    }
    for (const [key, w] of wanted) {
      const link = this.links.get(key) ?? this.open(key);
      if (!link) continue;
      const gone = [...link.topics.keys()].filter((t) => !w.topics.has(t));
      const added = [...w.topics.keys()].filter((t) => !link.topics.has(t));
      link.topics = w.topics;
      const newPortals = [...w.portals].filter((p) => !link.portals.has(p));
      link.portals = w.portals;
      if (gone.length > 0) link.client.unsubscribe(gone);
      if (added.length > 0 && link.client.connected) {
        await link.client
          .subscribeAsync(added, { qos: 0 })
          .catch((err: Error) =>
            this.opts.logger.warn({ err: err.message }, 'start condition subscribe failed'),
          );
      }
      for (const portal of newPortals) this.keepalive(link, portal, true);
      this.armKeepalive(link);
    }
  }

  async close(): Promise<void> {
    for (const [key, link] of [...this.links]) await this.drop(key, link);
  }

  private open(key: string): Link | null {
    let client: MqttClient;
    let owned = false;
    if (key === SITE) {
      if (!this.opts.site) {
        this.opts.logger.warn(
          {},
          'start condition sources on the site broker, but no broker is configured (MQTT_URL)',
        );
        return null;
      }
      client = this.opts.site;
    } else {
      owned = true;
      client = mqtt.connect(key, {
        clientId: `${this.opts.clientIdBase}-${this.links.size + 1}-${process.pid}`,
        reconnectPeriod: 2000,
        connectTimeout: 5000,
        protocolVersion: 4,
        clean: true,
      });
      client.on('error', (err) =>
        this.opts.logger.warn({ err: err.message, broker: redactUrl(key) }, 'source broker error'),
      );
      this.opts.logger.info({ broker: redactUrl(key) }, 'start condition sources connecting');
    }
    const link: Link = {
      client,
      owned,
      topics: new Map(),
      portals: new Set(),
      keepalive: null,
      onMessage: (topic, payload) => this.message(link, topic, payload),
      onConnect: () => {
        const topics = [...link.topics.keys()];
        if (topics.length > 0) client.subscribe(topics, { qos: 0 });
        // The GX publishes nothing, not even retained values, until it hears a keep-alive.
        for (const portal of link.portals) this.keepalive(link, portal, true);
      },
    };
    client.on('message', link.onMessage);
    client.on('connect', link.onConnect);
    this.links.set(key, link);
    return link;
  }

  private async drop(key: string, link: Link): Promise<void> {
    this.links.delete(key);
    this.opts.clock.clearInterval(link.keepalive);
    link.client.off('message', link.onMessage);
    link.client.off('connect', link.onConnect);
    if (link.owned) await link.client.endAsync(true).catch(() => undefined);
    else if (link.topics.size > 0 && link.client.connected) link.client.unsubscribe([...link.topics.keys()]);
  }

  private keepalive(link: Link, portal: string, full: boolean): void {
    if (!link.client.connected) return;
    link.client.publish(victronKeepaliveTopic(portal), full ? '' : VICTRON_KEEPALIVE_REPEAT, { qos: 0 });
  }

  private armKeepalive(link: Link): void {
    this.opts.clock.clearInterval(link.keepalive);
    link.keepalive = null;
    if (link.portals.size === 0) return;
    link.keepalive = this.opts.clock.setInterval(() => {
      for (const portal of link.portals) this.keepalive(link, portal, false);
    }, VICTRON_KEEPALIVE_MS);
  }

  private message(link: Link, topic: string, payload: Buffer): void {
    const names = link.topics.get(topic);
    const config = this.config;
    if (!names || !config) return;
    for (const name of names) {
      const src = config.sources[name];
      if (!src) continue;
      const value = parseSourcePayload(name, src, payload.toString('utf8'));
      if (value === undefined) {
        this.opts.logger.warn(
          { source: name, topic, bytes: payload.length },
          'start condition payload not understood; dropped',
        );
        continue;
      }
      void this.opts.sink
        .reading(name, value)
        .catch((err: unknown) =>
          this.opts.logger.error({ err, source: name }, 'start condition reading failed'),
        );
    }
  }
}

/** Wires the sources to the service: they follow every configuration it puts in force. */
export async function attachConditionSources(
  svc: {
    conditions: ReadingSink & {
      config: ConditionsConfig;
      onConfig(fn: (c: ConditionsConfig) => Promise<void>): void;
    };
  },
  opts: { site: MqttClient | null; clock: Clock; logger: DomainLogger; controllerId: string },
): Promise<ConditionSources> {
  const sources = new ConditionSources({
    site: opts.site,
    sink: svc.conditions,
    clock: opts.clock,
    logger: opts.logger,
    clientIdBase: `conditions-${opts.controllerId}`,
  });
  svc.conditions.onConfig((config) => sources.apply(config));
  await sources.apply(svc.conditions.config);
  return sources;
}
