import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type OutpostApp } from '../src/app.js';
import { type RunningServer, serveApp } from '../src/serve.js';

/** FastReads: a hot GET answered from Node's request ahead of Hono, as the app would answer it. */

let srv: RunningServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(path: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: srv!.port, path, method, headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** An app whose route and fast read give bodies that tell them apart. */
function demo(level = 'silent', lines: string[] = []): OutpostApp {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = createApp({ service: 'demo', version: '1', logger: pino({ level }, sink) });
  app.get('/hot', (c) => c.body('{"from":"route"}', 200, { 'content-type': 'application/json' }));
  return app;
}

describe('FastReads', () => {
  it('answers GET of its exact path with 200, the JSON body and the security headers', async () => {
    const app = demo();
    app.fastReads.add('/hot', () => '{"from":"fast","é":1}');
    srv = await serveApp(app, { port: 0, host: '127.0.0.1', tls: null });
    const res = await send('/hot');
    expect(res.status).toBe(200);
    expect(res.body).toBe('{"from":"fast","é":1}');
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // Plain HTTP: no HSTS, as for every other answer of the listener.
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('leaves a declined read, another method, a query string and an odd Host to the app', async () => {
    const app = demo();
    let answer: string | undefined;
    app.fastReads.add('/hot', () => answer);
    srv = await serveApp(app, { port: 0, host: '127.0.0.1', tls: null });
    expect((await send('/hot')).body).toBe('{"from":"route"}');
    answer = '{"from":"fast"}';
    expect((await send('/hot')).body).toBe('{"from":"fast"}');
    expect((await send('/hot?x=1')).body).toBe('{"from":"route"}');
    const head = await send('/hot', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json');
    const post = await send('/hot', 'POST');
    expect(post.status).toBe(405);
    expect((await send('/hot', 'GET', { host: 'a b' })).status).toBe(400);
  });

  it('a read that throws leaves the request to the app, and the server keeps serving', async () => {
    const app = demo();
    app.fastReads.add('/hot', () => {
      throw new Error('broken read');
    });
    srv = await serveApp(app, { port: 0, host: '127.0.0.1', tls: null });
    expect((await send('/hot')).body).toBe('{"from":"route"}');
    expect((await send('/health')).status).toBe(200);
  });

  it('times each answer into the HTTP histogram under its path and logs it like any request', async () => {
    const lines: string[] = [];
    const app = demo('info', lines);
    app.fastReads.add('/hot', () => '{}');
    srv = await serveApp(app, { port: 0, host: '127.0.0.1', tls: null });
    for (let i = 0; i < 3; i++) await send('/hot');
    const metrics = await app.metrics.registry.getSingleMetricAsString('http_request_duration_seconds');
    expect(metrics).toMatch(
      /http_request_duration_seconds_count\{[^}]*method="GET",route="\/hot",status="200"[^}]*\} 3/,
    );
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.path === '/hot');
    expect(logged).toHaveLength(3);
    expect(logged[0]).toMatchObject({ method: 'GET', status: 200, component: 'http' });
  });
});
