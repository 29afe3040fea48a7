import { createHash, randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createGzip } from 'node:zlib';
import { createCa, issueServerCert, type PemPair } from '@outpost/runtime/pki';

/**
 * A TLS-inspecting proxy as a company network puts in front of the npm registry, on 127.0.0.1 only:
 * npm asks it to CONNECT to registry.npmjs.org:443, and it answers the TLS itself with a certificate
 * for that name signed by a CA of its own. Nothing is forwarded anywhere: it serves one small package
 * of its own making, so a client passes only if it trusts the proxy's CA, and it never needs the
 * network. Every request it saw is kept, so a test can tell it was used.
 */
export interface InspectingProxy {
  /** http://127.0.0.1:<port>, for HTTPS_PROXY. */
  url: string;
  /** The proxy's CA certificate (PEM), what an operator is handed to trust. */
  caPem: string;
  /** The package it serves: name, version, and its tarball's sha512 integrity. */
  pkg: { name: string; version: string; integrity: string; resolved: string };
  /** `CONNECT host:port` and `GET path` lines, in order. */
  seen: string[];
  close(): Promise<void>;
}

/** A one-file npm tarball (a gzipped ustar archive with package/package.json and package/index.js). */
async function npmTarball(name: string, version: string): Promise<Buffer> {
  // Content of its own each time, so no cache (npm's, or a build cache mount) can answer for it.
  const files: [string, string][] = [
    ['package/package.json', JSON.stringify({ name, version, main: 'index.js' })],
    ['package/index.js', `module.exports = '${randomBytes(8).toString('hex')}';\n`],
  ];
  const blocks: Buffer[] = [];
  for (const [path, text] of files) {
    const body = Buffer.from(text);
    const header = Buffer.alloc(512);
    header.write(path, 0);
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write(
      `${Math.floor(Date.now() / 1000)
        .toString(8)
        .padStart(11, '0')}\0`,
      136,
    );
    header.write('        ', 148);
    header.write('0', 156);
    header.write('ustar\0', 257);
    header.write('00', 263);
    let sum = 0;
    for (const b of header) sum += b;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const gz = createGzip();
  const out: Buffer[] = [];
  gz.on('data', (d: Buffer) => out.push(d));
  const done = new Promise<void>((res) => gz.on('end', () => res()));
  gz.end(Buffer.concat(blocks));
  await done;
  return Buffer.concat(out);
}

export async function inspectingProxy(opts: { name: string; version: string }): Promise<InspectingProxy> {
  const REGISTRY = 'registry.npmjs.org';
  const ca: PemPair = await createCa({ commonName: 'Inspecting Proxy Test CA' });
  const leaf = await issueServerCert(ca, { names: [REGISTRY] });
  const tarball = await npmTarball(opts.name, opts.version);
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const tarPath = `/${opts.name}/-/${opts.name}-${opts.version}.tgz`;
  const resolved = `https://${REGISTRY}${tarPath}`;
  const seen: string[] = [];

  const registry = (req: IncomingMessage, res: ServerResponse) => {
    seen.push(`GET ${req.url}`);
    if (req.url === tarPath) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': tarball.length });
      res.end(tarball);
      return;
    }
    if (req.url === `/${opts.name}`) {
      const body = JSON.stringify({
        name: opts.name,
        'dist-tags': { latest: opts.version },
        versions: {
          [opts.version]: {
            name: opts.name,
            version: opts.version,
            dist: { tarball: resolved, integrity },
          },
        },
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
  };
  // Not listening: the CONNECT handler hands it each tunnelled socket to terminate.
  const tlsSide = createHttpsServer(
    { cert: `${leaf.cert.trim()}\n${ca.cert.trim()}\n`, key: leaf.key },
    registry,
  );
  const front = createHttpServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(403).end();
  });
  // Tunnelled sockets leave the HTTP server's books once handed over: kept here to close them.
  const tunnels = new Set<Socket>();
  front.on('connect', (req: IncomingMessage, socket: Socket) => {
    seen.push(`CONNECT ${req.url}`);
    tunnels.add(socket);
    socket.once('close', () => tunnels.delete(socket));
    if (req.url !== `${REGISTRY}:443`) {
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    tlsSide.emit('connection', socket);
  });
  await new Promise<void>((res) => front.listen(0, '127.0.0.1', () => res()));
  const { port } = front.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    caPem: ca.cert,
    pkg: { name: opts.name, version: opts.version, integrity, resolved },
    seen,
    close: () =>
      new Promise<void>((res) => {
        for (const s of tunnels) s.destroy();
        front.closeAllConnections();
        front.close(() => res());
      }),
  };
}
