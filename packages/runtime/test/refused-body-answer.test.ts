import { connect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { readBodyChunks, refusedBody } from '../src/node-body.js';
import { type RunningServer, serveApp } from '../src/serve.js';

/**
 * A body over the limit is answered 413 with `Connection: close`. Closing a socket that still holds
 * unread bytes makes the kernel reset it, and a reset discards the answer the client has not read yet
 * (RFC 9112 §9.6): the server must read the rest of the body (up to a bound) before it closes, so
 * every client that sends its whole body then reads gets the 413.
 */
const LIMIT = 1024;
const BODY = Buffer.alloc(8 * 1024 * 1024, 0x61);
const PIECE = 64 * 1024;
const TRIES = 50;
let srv: RunningServer;
let base: string;

beforeAll(async () => {
  const app = createApp({
    service: 'demo',
    version: '1.0.0',
    logger: pino({ level: 'silent' }),
    bodyLimit: LIMIT,
    streamBody: (c) => c.req.path === '/stream',
  });
  app.post('/collected', (c) => c.json({ ok: true }));
  app.post('/stream', async (c) => {
    const read = await readBodyChunks(c, LIMIT, () => {});
    if (read !== 'read') return refusedBody(c, read, LIMIT);
    return c.json({ ok: true });
  });
  srv = await serveApp(app, { port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${srv.port}`;
});

afterAll(async () => {
  await srv?.close();
});

/**
 * A raw client that reads only once its whole request is written, as many simple clients do: the head
 * and the body in 64 KiB pieces as the socket takes them, then whatever came back. A failed write
 * (the server reset the connection) ends it, as it ends any client.
 */
function rawUpload(path: string, chunked: boolean): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect(srv.port, '127.0.0.1');
    let got = '';
    sock.on('data', (d) => {
      got += d.toString('latin1');
    });
    const finish = () => resolve(got.split('\r\n')[0] ?? '');
    sock.on('error', (err) =>
      resolve(got ? got.split('\r\n')[0]! : `error ${(err as NodeJS.ErrnoException).code}`),
    );
    sock.on('close', finish);
    sock.pause();
    sock.on('connect', () => {
      const head = chunked
        ? `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n`
        : `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${BODY.length}\r\n\r\n`;
      sock.write(head);
      if (chunked) sock.write(`${BODY.length.toString(16)}\r\n`);
      let at = 0;
      const more = () => {
        while (at < BODY.length && !sock.destroyed) {
          const piece = BODY.subarray(at, at + PIECE);
          at += PIECE;
          if (!sock.write(piece)) return void sock.once('drain', more);
        }
        if (chunked && !sock.destroyed) sock.write('\r\n0\r\n\r\n');
        if (at >= BODY.length) sock.resume();
      };
      more();
    });
  });
}

async function fetchUpload(path: string): Promise<string> {
  try {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      body: BODY,
      headers: { 'content-type': 'text/plain' },
    });
    const body = (await res.json()) as { detail?: string };
    return `${res.status} ${body.detail ?? ''}`;
  } catch (err) {
    return `error ${String((err as Error & { cause?: { code?: string } }).cause?.code ?? err)}`;
  }
}

describe('an oversized upload always reads its 413', () => {
  for (const path of ['/collected', '/stream']) {
    it(`${path}: ${TRIES} uploads from a raw socket, declared length and chunked`, async () => {
      const answers: string[] = [];
      for (let i = 0; i < TRIES; i++) answers.push(await rawUpload(path, i % 2 === 1));
      expect(answers.filter((a) => a !== 'HTTP/1.1 413 Payload Too Large')).toEqual([]);
    }, 60_000);

    it(`${path}: ${TRIES} uploads from fetch`, async () => {
      const answers: string[] = [];
      for (let i = 0; i < TRIES; i++) answers.push(await fetchUpload(path));
      expect(answers.filter((a) => a !== `413 Request body larger than ${LIMIT} bytes`)).toEqual([]);
    }, 60_000);
  }
});
