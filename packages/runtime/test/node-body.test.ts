import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { createRoute, z } from '@hono/zod-openapi';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { readBodyChunks, refusedBody } from '../src/node-body.js';
import { type RunningServer, serveApp } from '../src/serve.js';

// Bodies under Node are read by the front layer from Node's own stream: over a real socket they
// must behave exactly as Hono's reading did (limits, bad JSON, encodings, raw bytes for proxies).
const LIMIT = 1024;
let srv: RunningServer;
let host: string;
let port: number;

beforeAll(async () => {
  const app = createApp({
    service: 'demo',
    version: '1.0.0',
    logger: pino({ level: 'silent' }),
    bodyLimit: (c) => (c.req.path === '/stream' ? 4 * LIMIT : LIMIT),
    streamBody: (c) => c.req.path === '/stream',
    guard: (c) => (c.req.header('x-refuse') ? c.json({ detail: 'refused' }, 401) : undefined),
  });
  const Body = z.object({ name: z.string().max(100), n: z.number().int().optional() }).strict();
  app.openapi(
    createRoute({
      method: 'post',
      path: '/echo',
      request: { body: { content: { 'application/json': { schema: Body } }, required: true } },
      responses: { 200: { description: 'ok', content: { 'application/json': { schema: Body } } } },
    }),
    (c) => c.json(c.req.valid('json'), 200),
  );
  // What a proxy does: forward the raw Request, whose bytes must be the client's exactly.
  app.put('/raw', async (c) => {
    const bytes = Buffer.from(await c.req.raw.arrayBuffer());
    return c.json({ hex: bytes.toString('hex') });
  });
  // A route that reads its own body as it arrives: the chunks as they came, and their sizes.
  app.post('/stream', async (c) => {
    const sizes: number[] = [];
    const parts: Buffer[] = [];
    const read = await readBodyChunks(c, 4 * LIMIT, (chunk) => {
      sizes.push(chunk.length);
      parts.push(Buffer.from(chunk));
    });
    if (read !== 'read') return refusedBody(c, read, 4 * LIMIT);
    return c.json({ sizes, text: Buffer.concat(parts).toString('utf8') });
  });
  srv = await serveApp(app, { port: 0, host: '127.0.0.1' });
  host = '127.0.0.1';
  port = srv.port;
});

afterAll(async () => {
  await srv?.close();
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/** One request; `chunks` are written one by one (chunked transfer when no length is given). */
function send(
  method: string,
  path: string,
  chunks: (string | Buffer)[],
  headers: Record<string, string> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host, port, method, path, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? JSON.parse(text) : null });
      });
    });
    req.on('error', reject);
    const writeNext = (i: number) => {
      if (i === chunks.length) {
        req.end();
        return;
      }
      req.write(chunks[i]);
      setTimeout(() => writeNext(i + 1), 5);
    };
    writeNext(0);
  });
}

const json = (body: unknown) => {
  const text = JSON.stringify(body);
  return {
    chunks: [text],
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
  };
};

describe('request bodies read from Node', () => {
  it('hands a JSON body to validation and the handler', async () => {
    const { chunks, headers } = json({ name: 'générateur ⚡', n: 3 });
    const res = await send('POST', '/echo', chunks, headers);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ name: 'générateur ⚡', n: 3 });
  });

  it('decodes UTF-8 split across chunks and drops a byte order mark', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"⚡ ok"}')]);
    // Cut inside the three bytes of ⚡.
    const cut = bytes.indexOf(0xe2) + 1;
    const res = await send('POST', '/echo', [bytes.subarray(0, cut), bytes.subarray(cut)], {
      'content-type': 'application/json',
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ name: '⚡ ok' });
  });

  it('answers unparseable JSON with 400 and schema violations with 422', async () => {
    const bad = await send('POST', '/echo', ['{"name": '], { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ detail: expect.any(String) });
    const { chunks, headers } = json({ name: 'x', extra: true });
    const invalid = await send('POST', '/echo', chunks, headers);
    expect(invalid.status).toBe(422);
    expect((invalid.json as { detail: string }).detail).toMatch(/extra/);
  });

  it('refuses a declared length over the limit with 413 and closes the connection', async () => {
    const { chunks, headers } = json({ name: 'x'.repeat(LIMIT) });
    const res = await send('POST', '/echo', chunks, headers);
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ detail: `Request body larger than ${LIMIT} bytes` });
    expect(res.headers.connection).toBe('close');
  });

  it('refuses a chunked body that grows over the limit with 413', async () => {
    const piece = 'x'.repeat(400);
    const res = await send('POST', '/echo', ['{"name":"', piece, piece, piece, '"}'], {
      'content-type': 'application/json',
    });
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
  });

  it('gives the raw Request the exact bytes, binary included', async () => {
    const bytes = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 0x7f]);
    const res = await send('PUT', '/raw', [bytes], {
      'content-type': 'application/octet-stream',
      'content-length': String(bytes.length),
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ hex: bytes.toString('hex') });
  });

  it('lets the guard refuse before any body is read', async () => {
    const { chunks, headers } = json({ name: 'x'.repeat(LIMIT) });
    const res = await send('POST', '/echo', chunks, { ...headers, 'x-refuse': '1' });
    expect(res.status).toBe(401);
  });

  it('serves two POSTs on one keep-alive connection', async () => {
    const body = '{"name":"one"}';
    const raw = [
      `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ].join('');
    const text = await new Promise<string>((resolve, reject) => {
      const sock = connect(port, host, () => sock.write(raw));
      let got = '';
      sock.on('data', (d) => {
        got += d.toString('utf8');
        if (got.split('HTTP/1.1 200').length === 3 && got.endsWith('}')) sock.end();
      });
      sock.on('end', () => resolve(got));
      sock.on('error', reject);
    });
    expect(text.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    expect(text.match(/\{"name":"one"\}/g)).toHaveLength(2);
  });

  it('survives a client that hangs up halfway through a body', async () => {
    await new Promise<void>((resolve) => {
      const sock = connect(port, host, () => {
        sock.write(
          'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"name":',
        );
        setTimeout(() => {
          sock.destroy();
          resolve();
        }, 20);
      });
    });
    const { chunks, headers } = json({ name: 'after' });
    const res = await send('POST', '/echo', chunks, headers);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ name: 'after' });
  });
});

describe('a body its route streams (streamBody)', () => {
  it('reaches the route chunk by chunk as the client sends it, up to the route’s own limit', async () => {
    const res = await send('POST', '/stream', ['a'.repeat(1000), 'b'.repeat(1000), 'c'.repeat(1000)], {
      'content-type': 'text/plain',
    });
    expect(res.status).toBe(200);
    const body = res.json as { sizes: number[]; text: string };
    // More than the app-wide LIMIT, and never gathered into one piece before the route.
    expect(body.text).toBe(`${'a'.repeat(1000)}${'b'.repeat(1000)}${'c'.repeat(1000)}`);
    expect(body.sizes.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...body.sizes)).toBeLessThanOrEqual(1000);
  });

  it('over its limit, declared or not, is 413 with the connection closed, as any other body', async () => {
    const declared = await send('POST', '/stream', ['x'], { 'content-length': String(4 * LIMIT + 1) });
    expect(declared.status).toBe(413);
    expect(declared.json).toEqual({ detail: `Request body larger than ${4 * LIMIT} bytes` });
    const grown = await send('POST', '/stream', ['x'.repeat(3 * LIMIT), 'x'.repeat(2 * LIMIT)]);
    expect(grown.status).toBe(413);
    expect(grown.headers.connection).toBe('close');
  });

  it('is not decoded by the NUL check, which still refuses a NUL in any other JSON body', async () => {
    const nul = JSON.stringify({ name: 'a\u0000b' });
    const streamed = await send('POST', '/stream', [nul], { 'content-type': 'application/json' });
    expect(streamed.status).toBe(200);
    expect((streamed.json as { text: string }).text).toBe(nul);
    const other = await send('POST', '/echo', [nul], { 'content-type': 'application/json' });
    expect(other.status).toBe(422);
  });
});
