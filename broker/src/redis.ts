import persistenceRedis from 'aedes-persistence-redis';
import { Redis } from 'ioredis';
import mqemitterRedis from 'mqemitter-redis';

export interface RedisBackplane {
  persistence: ReturnType<typeof persistenceRedis>;
  mq: ReturnType<typeof mqemitterRedis>;
  /** Ends the persistence connection; aedes.close() already closes the emitter. */
  close(): Promise<void>;
}

/**
 * Shared sessions, retained messages and delivery across broker processes. Stored keys carry
 * `keyPrefix` so several fleets (or test runs) can share one Redis database. Redis pub/sub channels
 * are not per-database, so brokers of different fleets on one Redis also need different topic prefixes.
 */
/**
 * The persistence sends some commands without awaiting them (will and queue clean-ups). Those that
 * meet a closing connection fail with "Connection is closed." and would end the process as an
 * unhandled rejection; here every command is marked handled. A caller that awaits a command still
 * gets its error.
 */
export class BackplaneRedis extends Redis {
  override sendCommand(...args: Parameters<Redis['sendCommand']>): unknown {
    const reply = super.sendCommand(...args);
    if (reply instanceof Promise) reply.catch(() => {});
    return reply;
  }
}

export function createRedisBackplane(url: string, keyPrefix: string): RedisBackplane {
  const conn = new BackplaneRedis(url, { keyPrefix, lazyConnect: false, maxRetriesPerRequest: null });
  const persistence = persistenceRedis({ conn });
  const mq = mqemitterRedis({ connectionString: url });
  let closed = false;
  return {
    persistence,
    mq,
    async close() {
      if (closed) return;
      closed = true;
      await persistence.destroy().catch(() => {});
      conn.disconnect();
    },
  };
}
