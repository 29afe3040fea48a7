import { afterEach, describe, expect, it } from 'vitest';
import { BackplaneRedis } from '../src/redis.js';
import { uid } from './helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

// The persistence fires some commands without awaiting them; at shutdown they meet a closed
// connection. None may surface as an unhandled rejection, and an awaited one still reports its error.
describe('Redis backplane connection', () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  afterEach(() => {
    process.off('unhandledRejection', record);
    unhandled.length = 0;
  });

  it('commands sent around a disconnect never become unhandled rejections', async () => {
    process.on('unhandledRejection', record);
    const conn = new BackplaneRedis(REDIS_URL, {
      keyPrefix: `outpost-test-${uid()}:`,
      maxRetriesPerRequest: null,
    });
    expect(await conn.ping()).toBe('PONG');
    void conn.lrem('wills', 0, 'k');
    conn.disconnect();
    void conn.rpush('wills', 'k');
    await expect(conn.get('awaited')).rejects.toThrow(/closed/i);
    await new Promise((r) => setTimeout(r, 100));
    expect(unhandled).toEqual([]);
  });
});
