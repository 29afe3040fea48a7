import type { DomainLogger, RelayPort } from '../domain/types.js';
import type { HeartbeatPublisher } from './heartbeat.js';

export interface RestOffOptions {
  /** RELAYNODE_URL, e.g. http://relaynode.local:8001 */
  url: string;
  /** RELAYNODE_API_SECRET, sent as X-API-Key. */
  apiSecret: string;
  timeoutMs?: number;
  logger: DomainLogger;
}

/**
 * The second OFF path: POST {RELAYNODE_URL}/api/relay/off with X-API-Key. It needs no broker, so a
 * stop reaches the relay while MQTT is down. Best effort and bounded: it never delays the stop.
 */
export class RestRelayOff {
  constructor(private readonly opts: RestOffOptions) {}

  async off(): Promise<boolean> {
    const { url, apiSecret, logger } = this.opts;
    const target = `${url.replace(/\/+$/, '')}/api/relay/off`;
    try {
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'X-API-Key': apiSecret },
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 3000),
      });
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
}

/** The state machine's relay port: the MQTT lease, plus the REST OFF path when RELAYNODE_URL is set. */
export function relayPort(heartbeat: HeartbeatPublisher, rest: RestRelayOff | null): RelayPort {
  return {
    available: () => heartbeat.available(),
    setArmed: (armed) => heartbeat.setArmed(armed),
    async commandRelay(on) {
      if (!on && rest) void rest.off();
      await heartbeat.commandRelay(on);
    },
  };
}
