import { serveApp } from '@outpost/runtime';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { pgliteTestDatabase } from '../helpers/databases.js';

// The read path is served from a cached view and its serialised JSON: these prove the cache
// follows every change a client can observe, over a real socket.
const tdb = pgliteTestDatabase();
let database: Database;
let t: TestApp;

beforeAll(async () => {
  database = await tdb.open();
}, 30_000);
afterAll(async () => {
  await database.close();
  await tdb.cleanup();
});
afterEach(async () => {
  await t?.close();
});

describe('GET /api/generator/state over a real socket', () => {
  it('answers the same state request after request, and follows changes and the clock', async () => {
    t = await testApp(database);
    const srv = await serveApp(t.app, { port: 0, host: '127.0.0.1' });
    const get = async () => {
      const res = await fetch(`${srv.url}/api/generator/state`, {
        headers: { authorization: `Bearer ${t.token}` },
      });
      // biome-ignore lint/suspicious/noExplicitAny: the test reads JSON fields freely
      return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
    };
    try {
      const first = await get();
      const second = await get();
      expect(first.status).toBe(200);
      expect(second).toEqual(first);
      expect(first.type).toMatch(/^application\/json/);
      expect(first.body.armed).toBe(false);

      expect((await t.request('POST', '/api/generator/arm')).status).toBe(200);
      expect((await get()).body.armed).toBe(true);

      expect((await t.request('POST', '/api/generator/start')).status).toBe(200);
      const running = await get();
      expect(running.body).toMatchObject({ running: true, state: 'running', runtime_seconds: 0 });
      t.clock.advance(90_000);
      const later = await get();
      expect(later.body.runtime_seconds).toBe(90);
      expect(later.body.updated_at).toBe(running.body.updated_at + 90);
    } finally {
      await srv.close();
    }
  });
});
