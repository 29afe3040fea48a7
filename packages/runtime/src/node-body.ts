import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Context } from 'hono';

export type BodyRead = 'read' | 'too_large' | 'aborted' | 'not_node';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Bytes of a refused body still read and dropped after its 413 (which closes the connection). Closing
 * a socket with unread bytes resets it, and the reset reaches a client still sending, which then never
 * reads the answer (RFC 9112 §9.6). Past this many, the connection is closed as it stands.
 */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;
/** A lingering connection on which the client sends nothing for this long is closed. */
export const LINGER_IDLE_MS = 5000;

/**
 * After a 413, the answer goes out at once, then the write side is closed (FIN) and the rest of the
 * body is read and dropped until the client ends or closes, LINGER_MAX_BYTES, or LINGER_IDLE_MS of
 * silence: only then is the socket closed. Node would close it as soon as the answer is written
 * (`destroySoon` on a `Connection: close` response), so that one socket's destroySoon is replaced.
 */
function lingerAfterAnswer(incoming: IncomingMessage): void {
  const socket = incoming.socket as Socket | null;
  if (!socket || socket.destroyed || incoming.readableEnded) return;
  let dropped = 0;
  let bodyDone = false;
  let answered = false;
  const close = () => {
    incoming.off('data', onData);
    if (!socket.destroyed) socket.destroy();
  };
  const maybeClose = () => {
    if (bodyDone && answered) close();
  };
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_MAX_BYTES) close();
  };
  const bodyEnded = () => {
    bodyDone = true;
    maybeClose();
  };
  incoming.on('data', onData);
  incoming.once('end', bodyEnded);
  incoming.once('error', bodyEnded);
  socket.once('end', bodyEnded);
  socket.setTimeout(LINGER_IDLE_MS, close);
  incoming.resume();
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const written = () => {
      answered = true;
      maybeClose();
    };
    if (socket.writableFinished) written();
    else socket.once('finish', written);
  };
}

/** Node's request under the node adapter (undefined under app.request() and other runtimes). */
/** Whether the request's method carries a body the front layer reads (a GET never does). */
export const hasBody = (c: Context): boolean => BODY_METHODS.has(c.req.method);

function incomingOf(c: Context): (IncomingMessage & { rawBody?: unknown }) | undefined {
  const env = c.env as { incoming?: IncomingMessage } | undefined;
  return env?.incoming;
}

/** At most maxSize bytes of the request body, or why not. */
function collect(incoming: IncomingMessage, maxSize: number): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (result: Buffer | 'too_large' | 'aborted') => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onAbort);
      incoming.off('close', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxSize) {
        // The rest is read and dropped after the 413 (refusedBody).
        incoming.pause();
        done('too_large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    const onAbort = () => done('aborted');
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onAbort);
    incoming.once('close', onAbort);
  });
}

const utf8 = new TextDecoder();

/**
 * Reads a request body straight from Node's stream, bounded by maxSize, and hands it to Hono's body
 * cache and to the adapter's raw Request. The adapter would otherwise build a full web Request and
 * a web stream per request, which costs a small JSON POST more than everything else it does.
 */
export async function readNodeBody(c: Context, maxSize: number): Promise<BodyRead> {
  const incoming = incomingOf(c);
  if (!incoming || !BODY_METHODS.has(c.req.method) || incoming.readableEnded) return 'not_node';
  const declared = incoming.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxSize) return 'too_large';
  const body = await collect(incoming, maxSize);
  if (typeof body === 'string') return body;
  // The adapter builds c.req.raw's body from rawBody, so a proxied request still carries the bytes.
  incoming.rawBody = body;
  // Hono's json() reads 'text' from this cache; its other forms are made from it with the content type.
  // Decoded when first asked for: a route that reads the bytes itself (a 10 MB replay upload, decoded
  // in slices) never holds the event loop for one 10 MB decode.
  let text: Promise<string> | undefined;
  Object.defineProperty(c.req.bodyCache, 'text', {
    get: () => {
      text ??= Promise.resolve(utf8.decode(body));
      return text;
    },
    set: (v: Promise<string>) => {
      text = v;
    },
    enumerable: true,
    configurable: true,
  });
  return 'read';
}

/**
 * The answer to a body that is too large (413, closing the connection) or incomplete (400). The
 * connection is not reused: the rest of a body refused unread would lie under the client's next
 * request. It closes once the client has sent the rest (see lingerAfterAnswer), so the 413 is read.
 */
export function refusedBody(c: Context, why: 'too_large' | 'aborted', maxSize: number): Response {
  const incoming = incomingOf(c);
  if (why === 'too_large' && incoming) lingerAfterAnswer(incoming);
  return why === 'too_large'
    ? c.json({ detail: `Request body larger than ${maxSize} bytes` }, 413, { Connection: 'close' })
    : c.json({ detail: 'Request body incomplete' }, 400);
}

const streamed = new WeakSet<Context>();

/** The front layer leaves this request's body to its route (the app's streamBody option). */
export function markStreamed(c: Context): void {
  streamed.add(c);
}

/** The body is the route's to read as it arrives: the front layer neither collects nor checks it. */
export function isStreamed(c: Context): boolean {
  return streamed.has(c);
}

/**
 * Hands each chunk of the request body to `onChunk` as it arrives (under Node, the socket's chunks of
 * at most 64 KiB each, one per turn of the event loop), at most maxSize bytes in all: a route reads a
 * large upload without ever holding it whole, and no step of the read works on more than one chunk.
 * For a route the app's streamBody option names; the answer is 'read', or why not (refusedBody).
 */
export async function readBodyChunks(
  c: Context,
  maxSize: number,
  onChunk: (chunk: Uint8Array) => void,
): Promise<'read' | 'too_large' | 'aborted'> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > maxSize) return 'too_large';
  let size = 0;
  const take = (chunk: Uint8Array): boolean => {
    size += chunk.length;
    if (size > maxSize) return false;
    onChunk(chunk);
    return true;
  };
  const incoming = incomingOf(c);
  if (incoming && !incoming.readableEnded) {
    return new Promise((resolve) => {
      const done = (result: 'read' | 'too_large' | 'aborted') => {
        incoming.off('data', onData);
        incoming.off('end', onEnd);
        incoming.off('error', onAbort);
        incoming.off('close', onAbort);
        resolve(result);
      };
      const onData = (chunk: Buffer) => {
        if (take(chunk)) return;
        incoming.pause();
        done('too_large');
      };
      const onEnd = () => done('read');
      const onAbort = () => done('aborted');
      incoming.on('data', onData);
      incoming.once('end', onEnd);
      incoming.once('error', onAbort);
      incoming.once('close', onAbort);
    });
  }
  // Another runtime (or app.request()): the web Request's stream, read the same way.
  const body = c.req.raw.body;
  if (!body) return 'read';
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return 'read';
      if (!take(value)) {
        await reader.cancel();
        return 'too_large';
      }
    }
  } catch {
    return 'aborted';
  }
}

/** The bytes readNodeBody read (undefined when it did not: another runtime, or no body). */
export function rawBodyOf(c: Context): Buffer | undefined {
  const raw = incomingOf(c)?.rawBody;
  return Buffer.isBuffer(raw) ? raw : undefined;
}
