import {
  decodePayload,
  DEFAULT_PREFIX,
  encodePayload,
  filterMatches,
  type PayloadInput,
  parseTopic,
  TOPICS,
  type TopicKey,
  type TopicParams,
  topicFilter,
  topicFor,
} from '@outpost/contracts';
import type { OutpostMqtt } from '@outpost/runtime';

/**
 * A broker in memory for the link's model-based suite: the same contract checks as the real client
 * (payloads encoded and decoded with the topic's schema, commands refused while disconnected, nothing
 * retained on command topics), and a network in between that the suite can drop, duplicate, reorder,
 * hold back and partition. Nothing is delivered until the suite says so, so every order of events is
 * reachable.
 */

interface Delivery {
  to: MemoryClient;
  topic: string;
  payload: string;
}

type Handler = (value: unknown, params: Record<string, string>, topic: string) => unknown;

export class MemoryBroker {
  up = true;
  readonly clients = new Set<MemoryClient>();
  readonly retained = new Map<string, string>();
  /** In flight, oldest first. */
  queue: Delivery[] = [];
  /** Every payload the broker took, by topic (what someone on the bus could capture and replay). */
  readonly seen: { topic: string; payload: string }[] = [];

  client(name: string): MemoryClient {
    const c = new MemoryClient(this, name);
    this.clients.add(c);
    return c;
  }

  /** A publish the broker accepted: retained if asked, queued to every matching subscriber. */
  route(from: MemoryClient | null, topic: string, payload: string, retain: boolean): void {
    this.seen.push({ topic, payload });
    if (this.seen.length > 400) this.seen.shift();
    if (retain) this.retained.set(topic, payload);
    for (const c of this.clients) {
      if (c === from && !c.echo) continue;
      if (c.reachable && c.matches(topic)) this.queue.push({ to: c, topic, payload });
    }
  }

  /** Delivers everything in flight (and what that causes), in order; a bound keeps a loop finite. */
  flush(limit = 500): number {
    let n = 0;
    while (this.queue.length > 0 && n < limit) {
      const d = this.queue.shift()!;
      n += 1;
      if (d.to.reachable) d.to.dispatch(d.topic, d.payload);
    }
    return n;
  }

  drop(index: number): void {
    if (this.queue.length) this.queue.splice(index % this.queue.length, 1);
  }

  duplicate(index: number): void {
    if (this.queue.length) {
      const i = index % this.queue.length;
      this.queue.splice(i, 0, { ...this.queue[i]! });
    }
  }

  /** Moves one message in flight behind all the others. */
  delay(index: number): void {
    if (this.queue.length > 1) {
      const [d] = this.queue.splice(index % this.queue.length, 1);
      this.queue.push(d!);
    }
  }

  setUp(up: boolean): void {
    if (this.up === up) return;
    const before = [...this.clients].map((c) => [c, c.connected] as const);
    this.up = up;
    if (!up) this.queue = [];
    for (const [c, was] of before) c.changed(was);
  }
}

/** What the services use of OutpostMqtt, on the memory broker. */
export class MemoryClient {
  readonly prefix = DEFAULT_PREFIX;
  /** Cut off from the broker (a partition on its side of the network). */
  private cut = false;
  closed = false;
  /** Receives its own publishes (a real client subscribed to a topic it publishes does). */
  echo = true;
  private readonly subs: { key: TopicKey; filter: string; handler: Handler }[] = [];
  private readonly connectFns: (() => void)[] = [];
  private readonly disconnectFns: (() => void)[] = [];
  availability: { topic: string } | null = null;

  constructor(
    readonly broker: MemoryBroker,
    readonly name: string,
  ) {}

  get connected(): boolean {
    return this.broker.up && !this.cut && !this.closed;
  }

  get reachable(): boolean {
    return this.connected;
  }

  matches(topic: string): boolean {
    return this.subs.some((s) => filterMatches(s.filter, topic));
  }

  /** The last will and the birth message, as OutpostMqtt sends them. */
  announce(svc: string, id: string): void {
    this.availability = { topic: topicFor('availability', { svc, id }, this.prefix) };
    if (this.connected) this.broker.route(this, this.availability.topic, 'online', true);
  }

  partition(cut: boolean): void {
    const was = this.connected;
    this.cut = cut;
    this.changed(was);
  }

  close(): void {
    const was = this.connected;
    if (was && this.availability) this.broker.route(this, this.availability.topic, 'offline', true);
    this.closed = true;
    this.broker.clients.delete(this);
    this.changed(was);
  }

  changed(was: boolean): void {
    const now = this.connected;
    if (was === now) return;
    if (!now) {
      // The broker publishes the last will of a client it lost.
      if (this.availability && this.broker.up)
        this.broker.route(this, this.availability.topic, 'offline', true);
      for (const f of this.disconnectFns) f();
      return;
    }
    if (this.availability) this.broker.route(this, this.availability.topic, 'online', true);
    for (const f of this.connectFns) f();
    // A resubscribe after a reconnect gets the retained messages again.
    for (const s of this.subs) this.deliverRetained(s.filter);
  }

  onConnect(fn: () => void): void {
    this.connectFns.push(fn);
  }

  onDisconnect(fn: () => void): void {
    this.disconnectFns.push(fn);
  }

  topic<K extends TopicKey>(key: K, params: TopicParams<K>): string {
    return topicFor(key, params, this.prefix);
  }

  async publish<K extends TopicKey>(
    key: K,
    params: TopicParams<K>,
    payload: PayloadInput<K>,
    opts: { retain?: boolean } = {},
  ): Promise<void> {
    const spec = TOPICS[key];
    const topic = topicFor(key, params, this.prefix);
    const body = encodePayload(key, payload);
    if (spec.command && !this.connected) throw new Error(`not connected: ${topic} not published`);
    if (!this.connected) return;
    this.broker.route(this, topic, body, !spec.command && (opts.retain ?? spec.retain));
  }

  async publishRaw(topic: string, payload: string | Buffer, opts: { retain?: boolean } = {}): Promise<void> {
    if (this.connected) this.broker.route(this, topic, String(payload), opts.retain ?? false);
  }

  async subscribe<K extends TopicKey>(
    key: K,
    params: Partial<TopicParams<K>>,
    handler: (value: never, params: never, topic: string) => unknown,
  ): Promise<void> {
    const filter = topicFilter(key, params, this.prefix);
    this.subs.push({ key, filter, handler: handler as unknown as Handler });
    this.deliverRetained(filter);
  }

  private deliverRetained(filter: string): void {
    if (!this.connected) return;
    for (const [topic, payload] of this.broker.retained) {
      if (filterMatches(filter, topic)) this.broker.queue.push({ to: this, topic, payload });
    }
  }

  dispatch(topic: string, payload: string): void {
    for (const sub of this.subs) {
      const params = parseTopic(sub.key, topic, this.prefix);
      if (!params) continue;
      const decoded = decodePayload(sub.key, payload);
      if (!decoded.ok) continue; // the real client logs and drops a malformed payload
      try {
        const out = sub.handler(decoded.value, params as Record<string, string>, topic);
        if (out && typeof (out as Promise<void>).catch === 'function') (out as Promise<void>).catch(() => {});
      } catch {
        // a handler's failure never reaches the broker
      }
    }
  }

  /** Typed as the real client for the adapters under test; only the members above are used. */
  get asMqtt(): OutpostMqtt {
    return this as unknown as OutpostMqtt;
  }
}
