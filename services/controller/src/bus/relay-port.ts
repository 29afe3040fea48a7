import { relaynode } from '@outpost/contracts';
import type { DomainLogger, RelayPort } from '../domain/types.js';
import type { AckSink, HeartbeatPublisher } from '../domain/heartbeat-lease.js';

export interface RelayNodeRestOptions {
  /** RELAYNODE_URL, e.g. http://relaynode.local:8001 */
  url: string;
  /** RELAYNODE_API_SECRET, sent as X-API-Key. */
  apiSecret: string;
  timeoutMs?: number;
  logger: DomainLogger;
}

/**
 * The second path to the relay node, its REST API, which needs no broker: every relay OFF as
 * POST /api/relay/off, and a start's leased heartbeat while the broker is down. Bounded, and one
 * request at a time in the order asked, so an OFF never overtakes the ON before it.
 */
export class RelayNodeRest {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: RelayNodeRestOptions) {}

  /** Best effort: false when the node did not take it; never throws. */
  off(): Promise<boolean> {
    return this.enqueue(() => this.postOff());
  }

  /** The node's verdict on the heartbeat; throws when it could not be asked or answered unreadably. */
  heartbeat(payload: relaynode.DesiredState): Promise<relaynode.HeartbeatAck> {
    return this.enqueue(() => this.postHeartbeat(payload));
  }

  /** The heartbeat publisher's view of this path. */
  get ackSink(): AckSink {
    return { send: (payload) => this.heartbeat(payload) };
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private post(path: string, body?: unknown): Promise<Response> {
    const { url, apiSecret, timeoutMs } = this.opts;
    return fetch(`${url.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      headers: {
        'X-API-Key': apiSecret,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs ?? 3000),
    });
  }

  private async postOff(): Promise<boolean> {
    const { logger } = this.opts;
    try {
      const res = await this.post('/api/relay/off');
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) {
        logger.warn({ status: res.status }, 'relay OFF over the relay node REST API refused');
        return false;
      }
      logger.info({}, 'relay OFF sent over the relay node REST API');
      return true;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'relay OFF over the relay node REST API failed');
      return false;
    }
  }

  private async postHeartbeat(payload: relaynode.DesiredState): Promise<relaynode.HeartbeatAck> {
    try {
      return await this.sendHeartbeat(payload);
    } catch (err) {
      this.opts.logger.warn(
        { seq: payload.seq, relay_on: payload.relay_on, err: (err as Error).message },
        'heartbeat over the relay node REST API failed',
      );
      throw err;
    }
  }

  private async sendHeartbeat(payload: relaynode.DesiredState): Promise<relaynode.HeartbeatAck> {
    const res = await this.post('/api/heartbeat', payload);
    const text = await res.text().catch(() => '');
    if (!res.ok) throw new Error(`relay node refused the heartbeat: HTTP ${res.status}`);
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // judged below as an unreadable answer
    }
    const ack = relaynode.HeartbeatAck.safeParse(body);
    if (!ack.success) throw new Error('relay node answered the heartbeat with an unreadable body');
    this.opts.logger.info(
      { seq: payload.seq, verdict: ack.data.verdict, relay_on: ack.data.relay_on, armed: ack.data.armed },
      'heartbeat sent over the relay node REST API',
    );
    return ack.data;
  }
}

/**
 * The state machine's relay port: the MQTT lease, plus the REST path when RELAYNODE_URL is set. While
 * the broker is down a start's ON goes over REST, unawaited (bounded, like OFF): the caller hears it
 * is not confirmed, and the lease decides what happens if the broker stays away.
 */
export function relayPort(heartbeat: HeartbeatPublisher, rest: RelayNodeRest | null): RelayPort {
  return {
    available: () => heartbeat.available(),
    deferredRoute: () => (heartbeat.watchesLease ? (rest ? 'rest' : 'heartbeat') : null),
    setArmed: (armed) => heartbeat.setArmed(armed),
    async commandRelay(on) {
      if (!on && rest) void rest.off();
      if (on && rest && !heartbeat.available()) {
        heartbeat.beatOver(rest.ackSink).catch(() => undefined);
        return;
      }
      await heartbeat.commandRelay(on);
    },
  };
}
