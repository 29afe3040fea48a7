import { type ConditionsConfig, SOURCE_NAMES, type SourceName } from '@outpost/contracts/conditions';
import { sourceTopicInLane } from '@outpost/contracts/topic-routes';
import { redactUrl, withTimeout } from '@outpost/runtime';
import mqtt, { type MqttClient } from 'mqtt';
import type { Clock } from '../domain/clock.js';
import {
  parseSourcePayload,
  sourceTopic,
  VICTRON_KEEPALIVE_MS,
  VICTRON_KEEPALIVE_REPEAT,
  VICTRON_SERIAL_FILTER,
  VICTRON_SILENCE_MS,
  victronKeepaliveTopic,
  victronLifeTopics,
  victronPortalOf,
} from '../domain/conditions/source-topics.js';
import type { DomainLogger } from '../domain/types.js';

/** Where readings go: the start conditions module. */
export interface ReadingSink {
  reading(name: SourceName, value: number | null): Promise<void>;
  /** The sources' device showed life without a new value (a GX heartbeat): their values still hold. */
  alive(names: SourceName[]): void;
}

/** Why a broker URL may not be reached (OUTBOUND_ALLOWED_NETWORKS), or null. */
export type OutboundRefusal = (url: string) => Promise<string | null>;

/** How long the retained serials of GXs are collected after the subscription is acknowledged. */
const DISCOVERY_WAIT_MS = 750;

const SITE = '';

interface Link {
  client: MqttClient;
  /** Owned here (another broker) or the site connection, which is only borrowed. */
  owned: boolean;
  topics: Map<string, SourceName[]>;
  /** Each GX on this broker, with the sources it feeds. */
  portals: Map<string, SourceName[]>;
  /** When each portal last showed life (clock ms). */
  lastLife: Map<string, number>;
  keepalive: unknown;
  onMessage: (topic: string, payload: Buffer) => void;
  onConnect: () => void;
}

/**
 * The start conditions' MQTT sources: subscribes to each source's topic on the site's broker or on
 * the broker its URL names, turns payloads into readings, and keeps every Victron GX publishing (its
 * keep-alive: an empty one on each connect asks for all values, then a repeat every 30 s that asks
 * for none again). A GX publishes a value only when it changes, so its heartbeat, any other message of
 * its portal and `full_publish_completed` keep its sources' values fresh; life after silence asks for
 * every value again. A payload the source cannot read is logged and dropped. A broker the outbound
 * policy refuses is not connected to.
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
      outboundRefusal?: OutboundRefusal;
      /** MQTT_TOPIC_PREFIX: topics under it are the services' own, not a source's. */
      prefix?: string;
    },
  ) {}

  /** Signs of life heard from each portal (a test's barrier; the console does not show it). */
  readonly lifeSigns = new Map<string, number>();

  private applying: Promise<void> = Promise.resolve();

  /** Follows a new configuration: subscribes, unsubscribes, connects and disconnects as needed. */
  apply(config: ConditionsConfig): Promise<void> {
    // One at a time: two saves in a row must not open the same broker twice.
    const next = this.applying.then(() => this.applyNow(config));
    this.applying = next.catch(() => undefined);
    return next;
  }

  /**
   * The portal ids of the GXs on a broker (the site's when no URL is given), from the serial each keeps
   * retained even before a keep-alive. Rejects when the broker cannot be reached.
   */
  async findPortals(brokerUrl?: string): Promise<string[]> {
    let client: MqttClient;
    let owned = false;
    if (brokerUrl === undefined) {
      if (!this.opts.site?.connected) throw new Error('the site broker is not connected');
      client = this.opts.site;
    } else {
      owned = true;
      client = await withTimeout(
        mqtt.connectAsync(brokerUrl, {
          clientId: `${this.opts.clientIdBase}-find-${process.pid}`,
          reconnectPeriod: 0,
          connectTimeout: 5000,
          protocolVersion: 4,
          clean: true,
        }),
        6000,
        'no answer from the broker',
      );
    }
    const portals = new Set<string>();
    const onMessage = (topic: string) => {
      const parts = topic.split('/');
      if (parts.length === 5 && parts[0] === 'N' && parts[2] === 'system' && parts[4] === 'Serial')
        portals.add(parts[1] as string);
    };
    client.on('message', onMessage);
    try {
      await withTimeout(client.subscribeAsync(VICTRON_SERIAL_FILTER, { qos: 0 }), 5000, 'no answer');
      // Retained messages follow the acknowledgement; an I/O wait, not a schedule (reads no Clock).
      await new Promise((r) => setTimeout(r, DISCOVERY_WAIT_MS));
    } finally {
      client.off('message', onMessage);
      if (owned) await client.endAsync(true).catch(() => undefined);
      else if (client.connected) client.unsubscribe(VICTRON_SERIAL_FILTER);
    }
    return [...portals].sort();
  }

  private async applyNow(config: ConditionsConfig): Promise<void> {
    this.config = config;
    const wanted = new Map<
      string,
      { topics: Map<string, SourceName[]>; portals: Map<string, SourceName[]> }
    >();
    for (const name of SOURCE_NAMES) {
      const src = config.sources[name];
      if (!src || src.type === 'rest') continue;
      const topic = sourceTopic(name, src);
      if (topic === null) continue;
      // A configuration stored before the save refused such topics is still kept in its lane.
      if (this.opts.prefix !== undefined && !sourceTopicInLane(topic, this.opts.prefix)) {
        this.opts.logger.warn(
          { source: name, topic },
          'start condition source under the bus prefix; not read',
        );
        continue;
      }
      const key = src.broker_url ?? SITE;
      const w = wanted.get(key) ?? { topics: new Map(), portals: new Map() };
      wanted.set(key, w);
      w.topics.set(topic, [...(w.topics.get(topic) ?? []), name]);
      if (src.type === 'victron_gx' && src.portal_id !== undefined)
        w.portals.set(src.portal_id, [...(w.portals.get(src.portal_id) ?? []), name]);
    }
    for (const w of wanted.values()) {
      for (const portal of w.portals.keys())
        for (const t of victronLifeTopics(portal)) if (!w.topics.has(t)) w.topics.set(t, []);
    }
    for (const [key, link] of [...this.links]) {
      if (!wanted.has(key)) await this.drop(key, link);
    }
    for (const [key, w] of wanted) {
      const link = this.links.get(key) ?? (await this.open(key));
      if (!link) continue;
      const gone = [...link.topics.keys()].filter((t) => !w.topics.has(t));
      const added = [...w.topics.keys()].filter((t) => !link.topics.has(t));
      link.topics = w.topics;
      link.portals = w.portals;
      if (gone.length > 0) link.client.unsubscribe(gone);
      if (added.length > 0 && link.client.connected) {
        await link.client
          .subscribeAsync(added, { qos: 0 })
          .catch((err: Error) =>
            this.opts.logger.warn({ err: err.message }, 'start condition subscribe failed'),
          );
      }
      // A changed source starts with no value (the module drops it): the GX publishes only changes,
      // so every save asks each GX for all its values once (dbus-flashmq allows 3 such a second).
      for (const portal of link.portals.keys()) this.keepalive(link, portal, true);
      this.armKeepalive(link);
    }
  }

  async close(): Promise<void> {
    for (const [key, link] of [...this.links]) await this.drop(key, link);
  }

  private async open(key: string): Promise<Link | null> {
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
      // Checked again here, not only on save: the network rule may have narrowed since (a restart).
      const refused = await this.opts.outboundRefusal?.(key);
      if (refused) {
        this.opts.logger.warn(
          { broker: redactUrl(key), reason: refused },
          'start condition broker refused; its sources stay unknown',
        );
        return null;
      }
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
      portals: new Map(),
      lastLife: new Map(),
      keepalive: null,
      onMessage: (topic, payload) => this.message(link, topic, payload),
      onConnect: () => {
        const topics = [...link.topics.keys()];
        if (topics.length > 0) client.subscribe(topics, { qos: 0 });
        // The GX publishes nothing, not even retained values, until it hears a keep-alive.
        for (const portal of link.portals.keys()) this.keepalive(link, portal, true);
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
    // A full publish is on its way: the life it brings is expected, not a GX coming back.
    if (full) link.lastLife.set(portal, this.opts.clock.now());
    link.client.publish(victronKeepaliveTopic(portal), full ? '' : VICTRON_KEEPALIVE_REPEAT, { qos: 0 });
  }

  /**
   * Any message of a portal is life: the GX is up and being kept alive, so the values it has not
   * republished are still its values. Life after VICTRON_SILENCE_MS of silence asks for every value.
   */
  private life(link: Link, topic: string): void {
    const portal = victronPortalOf(topic);
    const names = portal === null ? undefined : link.portals.get(portal);
    if (portal === null || !names) return;
    const now = this.opts.clock.now();
    const last = link.lastLife.get(portal);
    link.lastLife.set(portal, now);
    this.lifeSigns.set(portal, (this.lifeSigns.get(portal) ?? 0) + 1);
    if (last === undefined || now - last > VICTRON_SILENCE_MS) {
      this.opts.logger.info({ portal }, 'Victron GX heard again after silence: asking for every value');
      this.keepalive(link, portal, true);
    }
    this.opts.sink.alive(names);
  }

  private armKeepalive(link: Link): void {
    this.opts.clock.clearInterval(link.keepalive);
    link.keepalive = null;
    if (link.portals.size === 0) return;
    link.keepalive = this.opts.clock.setInterval(() => {
      for (const portal of link.portals.keys()) this.keepalive(link, portal, false);
    }, VICTRON_KEEPALIVE_MS);
  }

  private message(link: Link, topic: string, payload: Buffer): void {
    const names = link.topics.get(topic);
    const config = this.config;
    if (!names || !config) return;
    // Life first: a value that follows is then read against a fresh portal.
    if (link.portals.size > 0) this.life(link, topic);
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
      portalFinder: ((brokerUrl?: string) => Promise<string[]>) | null;
    };
    outboundRefusal?: OutboundRefusal;
  },
  opts: {
    site: MqttClient | null;
    clock: Clock;
    logger: DomainLogger;
    controllerId: string;
    prefix?: string;
  },
): Promise<ConditionSources> {
  const sources = new ConditionSources({
    site: opts.site,
    sink: svc.conditions,
    clock: opts.clock,
    logger: opts.logger,
    clientIdBase: `conditions-${opts.controllerId}`,
    ...(svc.outboundRefusal ? { outboundRefusal: svc.outboundRefusal } : {}),
    ...(opts.prefix !== undefined ? { prefix: opts.prefix } : {}),
  });
  svc.conditions.portalFinder = (url) => sources.findPortals(url);
  svc.conditions.onConfig((config) => sources.apply(config));
  await sources.apply(svc.conditions.config);
  return sources;
}
