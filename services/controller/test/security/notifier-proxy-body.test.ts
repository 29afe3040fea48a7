import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningServer, serveApp } from '@outpost/runtime';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { notifierProxy } from '../../src/gateway/notifier-proxy.js';
import { type TestApp, testApp } from '../helpers/app.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';

/**
 * The controller forwards /api/notifications/* with a body of at most 64 KiB. The limit holds while the
 * body streams in: a client cannot make the controller buffer more, or hold a request open with a body
 * that never ends, before it is refused.
 */

const LIMIT = 64 * 1024;
let tdb: TestDatabase;
let database: Database;
let t: TestApp;
let srv: RunningServer;
let notifier: Server;
const forwarded: string[] = [];

beforeAll(async () => {
  tdb = await testDatabase();
  database = await tdb.open();
  notifier = createServer((req, res) => {
    forwarded.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => notifier.listen(0, '127.0.0.1', r));
  t = await testApp(database, {
    gateway: {
      notifier: notifierProxy({
        url: `http://127.0.0.1:${(notifier.address() as AddressInfo).port}`,
        apiSecret: 'notifier-body-test-service-key-0123456789',
        logger: pino({ level: 'silent' }),
      }),
    },
  });
  await t.login();
  srv = await serveApp(t.app, { port: 0, host: '127.0.0.1' });
}, 90_000);

afterAll(async () => {
  await srv?.close();
  await t?.close();
  notifier?.closeAllConnections();
  await new Promise<void>((r) => (notifier ? notifier.close(() => r()) : r()));
  await database?.close();
  await tdb?.cleanup();
});

/** POSTs a chunked body over a real socket, writing `chunks` of 16 KiB and never ending it. */
function endlessPost(chunks: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${srv.url}/api/notifications/channels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', (err) => reject(err));
    const piece = Buffer.alloc(16 * 1024, 0x20);
    for (let i = 0; i < chunks; i++) req.write(piece);
  });
}

describe('notifier proxy body bound', () => {
  it('refuses with 413 once a streamed body passes the limit, without waiting for its end', async () => {
    const before = forwarded.length;
    const res = await endlessPost(LIMIT / (16 * 1024) + 2);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ detail: `Request body larger than ${LIMIT} bytes` });
    expect(forwarded.length).toBe(before);
  }, 10_000);

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const res = await new Promise<number>((resolve, reject) => {
      const req = request(`${srv.url}/api/notifications/channels`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.token}`,
          'content-type': 'application/json',
          'content-length': String(50 * 1024 * 1024),
        },
      });
      req.on('response', (r) => {
        r.resume();
        req.destroy();
        resolve(r.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{');
    });
    expect(res).toBe(413);
  }, 10_000);

  it('forwards a body at the limit', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(LIMIT - 20) });
    const res = await fetch(`${srv.url}/api/notifications/channels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      body,
    });
    expect(body.length).toBeLessThanOrEqual(LIMIT);
    expect(res.status).toBe(201);
    expect(forwarded.at(-1)).toBe('POST /api/notifications/channels');
  });
});
