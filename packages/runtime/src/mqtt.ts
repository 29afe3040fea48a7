import { randomUUID } from 'node:crypto';
import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import {
  decodePayload,
  encodePayload,
  type PayloadInput,
  type PayloadOf,
  parseTopic,
  type ResponseEnvelope,
  TOPICS,
  type TopicKey,
  type TopicParams,
  topicFilter,
  topicFor,
} from '@outpost/contracts';
import mqtt, { type IClientOptions, type MqttClient, Store } from 'mqtt';
import type { Logger } from 'pino';
import { withTimeout } from './clock.js';

export class RequestTimeoutError extends Error {
  constructor(topic: string, timeoutMs: number) {
    super(`no response on ${topic} within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

export class NotConnectedError extends Error {
  constructor(topic: string) {
    super(`MQTT broker not connected; refusing to publish command on ${topic}`);
    this.name = 'NotConnectedError';
  }
}

export interface MqttOptions {
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  prefix?: string;
  /** First level of this process's own topics: controller, relaynode, simulator, … */
  service: string;
  id: string;
  logger: Logger;
  clientId?: string;
  /** false keeps a persistent session so QoS 1 messages sent while offline arrive on reconnect. */
  clean?: boolean;
  reconnectPeriodMs?: number;
  connectTimeoutMs?: number;
  /** Resolve createMqtt before the first connection (the client keeps retrying in the background). */
  waitForConnect?: boolean;
}

type Handler<K extends TopicKey> = (
  payload: PayloadOf<K>,
  params: TopicParams<K>,
  topic: string,
) => void | Promise<void>;

interface Subscription {
  key: TopicKey;
  filter: string;
  qos: 0 | 1;
  handler: Handler<TopicKey>;
}

type StorePacket = Parameters<Store['put']>[0];

/**
 * mqtt.js resends unacknowledged QoS 1 publishes when it reconnects, before its `connect` event:
 * a relay ON issued just before the broker died would reach the node after the outage. This store
 * remembers which in-flight packets are commands so they can be dropped when the connection goes.
 */
class CommandTrackingStore extends Store {
  readonly inflightCommands = new Set<number>();
  constructor(private readonly isCommand: (topic: string) => boolean) {
    super();
  }
  override put(packet: StorePacket, cb: Parameters<Store['put']>[1]): this {
    if (packet.cmd === 'publish' && packet.messageId && this.isCommand(packet.topic)) {
      this.inflightCommands.add(packet.messageId);
    }
    return super.put(packet, cb);
  }
  override del(packet: Parameters<Store['del']>[0], cb: Parameters<Store['del']>[1]): this {
    if (packet.messageId !== undefined) this.inflightCommands.delete(packet.messageId);
    return super.del(packet, cb);
  }
}

/**
 * The one MQTT connection of a service: birth and last will on `<svc>/<id>/availability`, explicit
 * `offline` on a clean close, typed publish/subscribe over the contracts' topic map, and no command
 * publishing while disconnected (a queued ON delivered late is exactly what must never happen).
 */
export class OutpostMqtt {
  readonly client: MqttClient;
  readonly prefix: string;
  readonly availabilityTopic: string;
  private readonly subs: Subscription[] = [];
  private readonly pending = new Map<string, (reply: ResponseEnvelope) => void>();
  private readonly responseFilters = new Set<string>();
  private readonly log: Logger;
  private closed = false;
  /** Full topics this client has published commands on. */
  private readonly commandTopics = new Set<string>();
  private readonly outgoing = new CommandTrackingStore((topic) => this.commandTopics.has(topic));

  constructor(private readonly opts: MqttOptions) {
    this.prefix = opts.prefix ?? DEFAULT_PREFIX;
    this.log = opts.logger.child({ component: 'mqtt' });
    this.availabilityTopic = topicFor('availability', { svc: opts.service, id: opts.id }, this.prefix);
    const options: IClientOptions = {
      clientId: opts.clientId ?? `${opts.service}-${opts.id}-${process.pid}`,
      username: opts.username,
      password: opts.password,
      clean: opts.clean ?? true,
      reconnectPeriod: opts.reconnectPeriodMs ?? 1000,
      connectTimeout: opts.connectTimeoutMs ?? 5000,
      protocolVersion: 4,
      resubscribe: true,
      // Messages published while offline are dropped by publish() for commands; telemetry is not worth queueing.
      queueQoSZero: false,
      will: { topic: this.availabilityTopic, payload: Buffer.from('offline'), qos: 1, retain: true },
      outgoingStore: this.outgoing,
      // mqtt-packet otherwise builds, at the first packet written, a 2-byte Buffer for every number up to
      // 65535 and keeps them for the life of the process: about 7 MB of heap in every service, to save
      // one small allocation per packet.
      writeCache: false,
    };
    this.client = mqtt.connect(opts.url, options);
    this.client.on('connect', (ack) => {
      // A command is one small packet that must leave now, not wait for Nagle to coalesce it (~40 ms).
      const stream = this.client.stream as { setNoDelay?: (on: boolean) => void } | undefined;
      stream?.setNoDelay?.(true);
      this.log.info({ url: redactUrl(opts.url), sessionPresent: ack.sessionPresent }, 'broker connected');
      this.client.publish(this.availabilityTopic, 'online', { qos: 1, retain: true });
    });
    this.client.on('close', () => {
      if (!this.closed) this.log.warn('broker connection closed');
      // A command not acknowledged before the connection went is void: never resent after the outage.
      for (const id of [...this.outgoing.inflightCommands]) {
        this.outgoing.inflightCommands.delete(id);
        this.client.removeOutgoingMessage(id);
      }
    });
    this.client.on('error', (err) => this.log.warn({ err: err.message }, 'broker error'));
    this.client.on('message', (topic, payload) => this.dispatch(topic, payload));
  }

  get connected(): boolean {
    return this.client.connected;
  }

  onConnect(fn: () => void): void {
    this.client.on('connect', () => fn());
  }

  onDisconnect(fn: () => void): void {
    this.client.on('close', () => fn());
  }

  /** Resolves on the first successful connection, or rejects after timeoutMs. */
  waitConnected(timeoutMs = 10_000): Promise<void> {
    if (this.client.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.client.off('connect', ok);
        reject(new Error(`MQTT broker at ${redactUrl(this.opts.url)} not reachable within ${timeoutMs} ms`));
      }, timeoutMs);
      const ok = () => {
        clearTimeout(timer);
        resolve();
      };
      this.client.once('connect', ok);
    });
  }

  topic<K extends TopicKey>(key: K, params: TopicParams<K>): string {
    return topicFor(key, params, this.prefix);
  }

  /** Validates the payload against the contract and publishes with the topic's retain and QoS. */
  async publish<K extends TopicKey>(
    key: K,
    params: TopicParams<K>,
    payload: PayloadInput<K>,
    opts: { retain?: boolean } = {},
  ): Promise<void> {
    const spec = TOPICS[key];
    const topic = topicFor(key, params, this.prefix);
    const body = encodePayload(key, payload);
    if (spec.command && !this.client.connected) throw new NotConnectedError(topic);
    if (spec.command) this.commandTopics.add(topic);
    if (!this.client.connected && spec.qos === 0) return;
    await this.client.publishAsync(topic, body, { qos: spec.qos, retain: opts.retain ?? spec.retain });
  }

  /** Publishes an arbitrary payload (HA discovery removal, raw strings); prefer publish(). */
  async publishRaw(
    topic: string,
    payload: string | Buffer,
    opts: { qos?: 0 | 1; retain?: boolean } = {},
  ): Promise<void> {
    await this.client.publishAsync(topic, payload, { qos: opts.qos ?? 1, retain: opts.retain ?? false });
  }

  /** Subscribes to a topic of the contract; omitted params become `+`. Bad payloads are logged and dropped. */
  async subscribe<K extends TopicKey>(
    key: K,
    params: Partial<TopicParams<K>>,
    handler: Handler<K>,
  ): Promise<void> {
    const filter = topicFilter(key, params, this.prefix);
    const qos = TOPICS[key].qos;
    this.subs.push({ key, filter, qos, handler: handler as unknown as Handler<TopicKey> });
    if (this.client.connected) await this.client.subscribeAsync(filter, { qos });
    else this.client.once('connect', () => void this.client.subscribe(filter, { qos }));
  }

  /**
   * Request/response over `<svc>/<id>/request/<verb>` → `.../response/<verb>`, matched by a transaction
   * id. Throws NotConnectedError while offline (a request is never queued) and RequestTimeoutError
   * when no answer comes in time.
   */
  async request(
    target: { svc: string; id: string; verb: string },
    data: unknown,
    opts: { timeoutMs?: number } = {},
  ): Promise<ResponseEnvelope> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    const responseParams = { svc: target.svc, id: target.id, verb: target.verb };
    const filter = topicFor('response', responseParams, this.prefix);
    if (!this.client.connected) throw new NotConnectedError(topicFor('request', target, this.prefix));
    if (!this.responseFilters.has(filter)) {
      this.responseFilters.add(filter);
      await this.subscribe('response', responseParams, (reply) => {
        const resolve = this.pending.get(reply.transaction);
        if (resolve) {
          this.pending.delete(reply.transaction);
          resolve(reply);
        }
      });
    }
    const transaction = randomUUID();
    return new Promise<ResponseEnvelope>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(transaction);
        reject(new RequestTimeoutError(filter, timeoutMs));
      }, timeoutMs);
      this.pending.set(transaction, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      this.publish('request', target, { transaction, data }).catch((err: unknown) => {
        clearTimeout(timer);
        this.pending.delete(transaction);
        reject(err);
      });
    });
  }

  private dispatch(topic: string, payload: Buffer): void {
    for (const sub of this.subs) {
      const params = parseTopic(sub.key, topic, this.prefix);
      if (!params) continue;
      const decoded = decodePayload(sub.key, payload);
      if (!decoded.ok) {
        this.log.warn({ topic, error: decoded.error, bytes: payload.length }, 'dropped malformed payload');
        continue;
      }
      try {
        const out = sub.handler(decoded.value, params, topic);
        if (out && typeof (out as Promise<void>).catch === 'function') {
          (out as Promise<void>).catch((err: unknown) =>
            this.log.error({ err, topic }, 'message handler failed'),
          );
        }
      } catch (err) {
        this.log.error({ err, topic }, 'message handler failed');
      }
    }
  }

  /** Publishes `offline` (the will covers a crash) and disconnects, never waiting on a broker that went away. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.client.connected) {
      try {
        await withTimeout(
          this.client.publishAsync(this.availabilityTopic, 'offline', { qos: 1, retain: true }),
          2000,
        );
        await withTimeout(this.client.endAsync(false), 2000);
        return;
      } catch {
        // Broker went away during shutdown: the last will says offline for us.
      }
    }
    await this.client.endAsync(true);
  }
}

export async function createMqtt(opts: MqttOptions): Promise<OutpostMqtt> {
  const bus = new OutpostMqtt(opts);
  if (opts.waitForConnect !== false) await bus.waitConnected(opts.connectTimeoutMs ?? 10_000);
  return bus;
}

/** The URL without credentials, for logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = 'redacted';
    return u.toString();
  } catch {
    return '[unparseable url]';
  }
}
