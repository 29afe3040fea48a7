import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

export type BodyRead = 'read' | 'too_large' | 'aborted' | 'not_node';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Node's request under the node adapter (undefined under app.request() and other runtimes). */
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
        // The rest is never read; the 413 closes the connection.
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

/** The bytes readNodeBody read (undefined when it did not: another runtime, or no body). */
export function rawBodyOf(c: Context): Buffer | undefined {
  const raw = incomingOf(c)?.rawBody;
  return Buffer.isBuffer(raw) ? raw : undefined;
}
