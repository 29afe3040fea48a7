import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

const MIN = 60_000;
let tdb: TestDatabase;
let database: Database;
let t: TestApp;

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
}, 60_000);
afterAll(async () => {
  // Re-open the database first so nothing is left waiting on a refused connection.
  await tdb?.admin(`alter database ${tdb.dbName} with allow_connections true`).catch(() => undefined);
  await t?.close();
  await bounded(database?.close());
  await tdb?.cleanup();
});

/** Closing must not hang the suite if a connection is stuck after the outage. */
function bounded(p: Promise<unknown> | undefined, ms = 10_000): Promise<unknown> {
  return Promise.race([p, new Promise((resolve) => setTimeout(resolve, ms))]);
}

describe('relay OFF always works (PostgreSQL goes away)', () => {
  it('stop answers and commands the relay OFF with the database down; the run is recorded once it is back', async () => {
    t = await testApp(database);
    await t.request('POST', '/api/generator/arm');
    const start = await t.request('POST', '/api/generator/start', { notes: 'outage test' });
    expect(start.status).toBe(200);
    t.clock.advance(10 * MIN);

    await tdb.admin(`alter database ${tdb.dbName} with allow_connections false`);
    await tdb.admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${tdb.dbName}'`);

    const stop = await t.request('POST', '/api/generator/stop', { reason: 'db is down' });
    expect(stop.status).toBe(200);
    expect(stop.body).toMatchObject({
      success: true,
      run_id: start.body.run_id,
      duration_seconds: 600,
      stop_reason: 'manual',
    });
    expect(t.relay.last).toBe(false);
    expect((await t.request('GET', '/api/generator/state')).body).toMatchObject({
      running: false,
      state: 'idle',
    });
    // A start needs the database: refused, the relay stays OFF.
    const refused = await t.request('POST', '/api/generator/start', {});
    expect(refused.status).toBe(503);
    expect(t.relay.last).toBe(false);
    expect(t.svc.controller.pendingWrites).toBeGreaterThan(0);

    await tdb.admin(`alter database ${tdb.dbName} with allow_connections true`);
    // The queued writes retry every 5 s of controller time.
    await waitFor(() => {
      t.clock.advance(5000);
      return t.svc.controller.pendingWrites === 0;
    }, 15_000);
    const run = (await t.request('GET', '/api/generator/history')).body[0];
    expect(run).toMatchObject({
      id: start.body.run_id,
      stop_reason: 'manual',
      duration_seconds: 600,
      stop_note: 'db is down',
      notes: 'outage test',
    });
  }, 30_000);
});
