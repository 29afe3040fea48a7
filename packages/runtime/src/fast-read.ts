import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/**
 * Answers a hot GET from Node's own request: its JSON body, or undefined to leave the request to the
 * app as if this had never seen it (a refusal, an error, anything it does not answer the usual way).
 */
export type FastRead = (incoming: IncomingMessage) => string | undefined;

/**
 * GETs answered on Node's request and response ahead of the Hono adapter, which otherwise builds a
 * URL, a Request, a Context and a Response for each one and runs the middleware chain: for a small
 * JSON read polled by every client, that is most of its time. An answer here is what the app gives
 * for the same request: 200, `content-type: application/json` and the body (serveApp's response adds
 * the security headers at writeHead, as for every answer), timed into the same HTTP histogram and
 * logged the same way. Everything else, and whatever a FastRead declines, goes to the app unchanged.
 */
export class FastReads {
  private readonly routes = new Map<string, FastRead>();
  private lastBody = '';
  private lastLength = 0;

  constructor(
    private readonly observe: (method: string, route: string, status: number, ms: number) => void,
    private readonly log: Logger,
    private readonly quiet: ReadonlySet<string>,
  ) {}

  /** Answers GET `path` (exactly that target: with a query string it goes to the app) with `read`. */
  add(path: string, read: FastRead): void {
    this.routes.set(path, read);
  }

  /** True when the request was answered here; false hands it to the app untouched. */
  serve(incoming: IncomingMessage, outgoing: ServerResponse): boolean {
    if (incoming.method !== 'GET') return false;
    const path = incoming.url ?? '';
    const read = this.routes.get(path);
    // A missing or unusual Host is the adapter's to judge (it may refuse the request with 400).
    if (read === undefined || !PLAIN_HOST.test(incoming.headers.host ?? '')) return false;
    const start = performance.now();
    let body: string | undefined;
    try {
      body = read(incoming);
    } catch {
      // Not the listener's to throw (that would end the process): the app answers, as for any error.
      return false;
    }
    if (body === undefined) return false;
    if (body !== this.lastBody) {
      this.lastBody = body;
      this.lastLength = Buffer.byteLength(body);
    }
    outgoing.writeHead(200, { 'content-type': 'application/json', 'Content-Length': this.lastLength });
    outgoing.end(body);
    const ms = performance.now() - start;
    this.observe('GET', path, 200, ms);
    if (this.log.isLevelEnabled('info') && !this.quiet.has(path)) {
      this.log.info({ method: 'GET', path, status: 200, ms: +ms.toFixed(2) }, 'request');
    }
    return true;
  }
}

/** A host name or IPv4 address, or a bracketed IPv6 one, with an optional port. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
