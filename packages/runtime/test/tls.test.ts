import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app.js';
import { ConfigError } from '../src/config.js';
import { certFingerprint, createCa, issueServerCert, type PemPair } from '../src/pki.js';
import { type RunningServer, serveApp } from '../src/serve.js';
import { serverTlsFromEnv } from '../src/tls.js';

let dir: string;
let ca: PemPair;
let otherCa: PemPair;
let server: PemPair;
let files: { TLS_CERT_FILE: string; TLS_KEY_FILE: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-tls-'));
  ca = await createCa({ commonName: 'Outpost test CA' });
  otherCa = await createCa({ commonName: 'Someone else' });
  server = await issueServerCert(ca, { names: ['localhost', '127.0.0.1', '::1'] });
  files = { TLS_CERT_FILE: join(dir, 'server.pem'), TLS_KEY_FILE: join(dir, 'server.key') };
  writeFileSync(files.TLS_CERT_FILE, server.cert);
  writeFileSync(files.TLS_KEY_FILE, server.key, { mode: 0o600 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let srv: RunningServer | null = null;
afterEach(async () => {
  vi.unstubAllEnvs();
  await srv?.close();
  srv = null;
});

const demo = () => createApp({ service: 'demo', version: '1', logger: pino({ level: 'silent' }) });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(url: string, opts: { ca?: string } = {}): Promise<Answer> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { ...(opts.ca ? { ca: opts.ca } : {}), timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('local CA', () => {
  it('signs a server certificate for every name given, which only its CA verifies', () => {
    const caCert = new X509Certificate(ca.cert);
    const leaf = new X509Certificate(server.cert);
    expect(caCert.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkIP('::1')).toBe('::1');
    expect(leaf.checkHost('localhost')).toBe('localhost');
    expect(leaf.checkHost('elsewhere.example')).toBeUndefined();
    expect(leaf.verify(caCert.publicKey)).toBe(true);
    expect(leaf.verify(new X509Certificate(otherCa.cert).publicKey)).toBe(false);
    expect(certFingerprint(ca.cert)).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });
});

describe('serveApp over TLS', () => {
  it('serves HTTPS from TLS_CERT_FILE/TLS_KEY_FILE, verified against the CA, with HSTS', async () => {
    for (const [k, v] of Object.entries(files)) vi.stubEnv(k, v);
    srv = await serveApp(demo(), { port: 0, host: '127.0.0.1' });
    expect(srv.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await get(`${srv.url}/health`, { ca: ca.cert });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).status).toBe('healthy');
    expect(res.headers['strict-transport-security']).toBe('max-age=15552000; includeSubDomains');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('sends no HSTS over plain HTTP', async () => {
    srv = await serveApp(demo(), { port: 0, host: '127.0.0.1', tls: null });
    expect(srv.url).toMatch(/^http:\/\//);
    const res = await get(`${srv.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('a client that trusts another CA, or none, is refused', async () => {
    srv = await serveApp(demo(), {
      port: 0,
      host: '127.0.0.1',
      tls: { cert: Buffer.from(server.cert), key: Buffer.from(server.key) },
    });
    await expect(get(`${srv.url}/health`, { ca: otherCa.cert })).rejects.toThrow(/certificate/i);
    await expect(get(`${srv.url}/health`)).rejects.toThrow(/certificate/i);
    await expect(fetch(`${srv.url}/health`)).rejects.toThrow();
  });

  it('a plain HTTP request to the TLS port fails at once and the server keeps serving', async () => {
    srv = await serveApp(demo(), {
      port: 0,
      host: '127.0.0.1',
      tls: { cert: Buffer.from(server.cert), key: Buffer.from(server.key) },
    });
    const started = Date.now();
    await expect(get(`http://127.0.0.1:${srv.port}/health`)).rejects.toThrow(/hang up|ECONNRESET|socket/i);
    expect(Date.now() - started).toBeLessThan(2000);
    const res = await get(`${srv.url}/health`, { ca: ca.cert });
    expect(res.status).toBe(200);
  });
});

describe('a fast read over TLS', () => {
  it('carries HSTS like every other answer of the HTTPS listener', async () => {
    const app = demo();
    app.fastReads.add('/hot', () => '{"hot":true}');
    srv = await serveApp(app, {
      port: 0,
      host: '127.0.0.1',
      tls: { cert: Buffer.from(server.cert), key: Buffer.from(server.key) },
    });
    const res = await get(`${srv.url}/hot`, { ca: ca.cert });
    expect(res).toMatchObject({ status: 200, body: '{"hot":true}' });
    expect(res.headers['strict-transport-security']).toBe('max-age=15552000; includeSubDomains');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });
});

describe('serverTlsFromEnv', () => {
  const message = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('no error');
  };

  it('neither variable: plain', () => {
    expect(serverTlsFromEnv({})).toBeNull();
  });

  it('one of the pair alone names the missing one', () => {
    expect(message(() => serverTlsFromEnv({ TLS_CERT_FILE: files.TLS_CERT_FILE }))).toMatch(
      /^Invalid environment variable TLS_KEY_FILE: /,
    );
    expect(message(() => serverTlsFromEnv({ TLS_KEY_FILE: files.TLS_KEY_FILE }))).toMatch(
      /^Invalid environment variable TLS_CERT_FILE: /,
    );
  });

  it('an unreadable file, a file that is no certificate, and a key of another certificate are named', async () => {
    expect(message(() => serverTlsFromEnv({ ...files, TLS_CERT_FILE: join(dir, 'missing.pem') }))).toMatch(
      /TLS_CERT_FILE: cannot read .*missing\.pem \(ENOENT\)/,
    );
    expect(message(() => serverTlsFromEnv({ ...files, TLS_CERT_FILE: files.TLS_KEY_FILE }))).toMatch(
      /TLS_CERT_FILE: .* is not a PEM certificate/,
    );
    const stranger = await issueServerCert(ca, { names: ['localhost'] });
    const strangerKey = join(dir, 'stranger.key');
    writeFileSync(strangerKey, stranger.key);
    const text = message(() => serverTlsFromEnv({ ...files, TLS_KEY_FILE: strangerKey }));
    expect(text).toMatch(/TLS_KEY_FILE: .* is not the key of the certificate/);
    expect(text).not.toContain('PRIVATE KEY');
  });
});
