/**
 * Local peers for tests of anything that sends notifications: an HTTP server that records requests
 * and a real SMTP server (python3-aiosmtpd). Both listen on 127.0.0.1 only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Parsed JSON body, or null. */
  json: unknown;
  /** Parsed form body (application/x-www-form-urlencoded), or null. */
  form: Record<string, string> | null;
}

export type Responder = (req: RecordedRequest) => { status?: number; body?: unknown } | undefined;

export interface HttpPeer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Decides each reply; default 200 with `{ ok: true, status: 1 }` (pleases Telegram and Pushover checks). */
  respond: Responder;
  /** Resolves when `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

export async function startHttpPeer(respond?: Responder): Promise<HttpPeer> {
  const requests: RecordedRequest[] = [];
  const waiters: Array<() => void> = [];
  const peer = {
    requests,
    respond: respond ?? (() => undefined),
  } as HttpPeer;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const type = String(req.headers['content-type'] ?? '');
      const form = type.startsWith('application/x-www-form-urlencoded')
        ? Object.fromEntries(new URLSearchParams(body))
        : null;
      const rec: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        json,
        form,
      };
      requests.push(rec);
      const out = peer.respond(rec) ?? {};
      const status = out.status ?? 200;
      const payload = out.body ?? { ok: true, status: 1 };
      res.writeHead(status, {
        'content-type': typeof payload === 'string' ? 'text/plain' : 'application/json',
      });
      res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  peer.port = port;
  peer.url = `http://127.0.0.1:${port}`;
  peer.waitFor = (n, timeoutMs = 5000) =>
    new Promise((resolve, reject) => {
      const deadline = setTimeout(
        () => reject(new Error(`expected ${n} requests, got ${requests.length}`)),
        timeoutMs,
      );
      const check = () => {
        if (requests.length >= n) {
          clearTimeout(deadline);
          resolve(requests.slice());
        } else waiters.push(check);
      };
      check();
    });
  peer.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return peer;
}

export interface ReceivedMail {
  mail_from: string;
  rcpt_tos: string[];
  from: string;
  to: string;
  subject: string;
  body: string;
  login: string | null;
}

export interface SmtpPeer {
  host: string;
  port: number;
  messages(): ReceivedMail[];
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

const SMTP_SCRIPT = String.raw`
import asyncio, json, sys, email, email.policy
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

port, out = int(sys.argv[1]), sys.argv[2]
logins = {}

def login(session):
    data = getattr(session, 'auth_data', None)
    return data.decode() if isinstance(data, bytes) else data

class Handler:
    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        body = msg.get_body(preferencelist=('plain',))
        rec = {
            'mail_from': envelope.mail_from,
            'rcpt_tos': list(envelope.rcpt_tos),
            'from': str(msg.get('From', '')),
            'to': str(msg.get('To', '')),
            'subject': str(msg.get('Subject', '')),
            'body': body.get_content() if body is not None else '',
            'login': login(session),
        }
        with open(out, 'a') as f:
            f.write(json.dumps(rec) + '\n')
        return '250 OK'

def authenticator(server, session, envelope, mechanism, auth_data):
    ok = getattr(auth_data, 'password', b'') == b'secret'
    return AuthResult(success=ok, handled=False, auth_data=getattr(auth_data, 'login', None) if ok else None)

c = Controller(Handler(), hostname='127.0.0.1', port=port, authenticator=authenticator, auth_require_tls=False)
c.start()
print('ready', flush=True)
try:
    sys.stdin.read()
finally:
    c.stop()
`;

/** A free TCP port on 127.0.0.1 (listen on 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A real SMTP server (aiosmtpd, run with /usr/bin/python3). Accepts AUTH with any user and the
 * password `secret`. Throws when aiosmtpd is not installed.
 */
export async function startSmtpPeer(): Promise<SmtpPeer> {
  const dir = mkdtempSync(join(tmpdir(), 'smtp-peer-'));
  const script = join(dir, 'peer.py');
  const out = join(dir, 'mail.jsonl');
  writeFileSync(script, SMTP_SCRIPT);
  writeFileSync(out, '');
  const port = await freePort();
  const child: ChildProcess = spawn('/usr/bin/python3', [script, String(port), out], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`aiosmtpd did not start: ${stderr}`)), 10_000);
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`aiosmtpd exited with ${code}: ${stderr}`));
    });
  });
  const messages = (): ReceivedMail[] =>
    readFileSync(out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ReceivedMail);
  return {
    host: '127.0.0.1',
    port,
    messages,
    async waitFor(n, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const got = messages();
        if (got.length >= n) return got;
        if (Date.now() > until) throw new Error(`expected ${n} mails, got ${got.length}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.stdin?.end();
        const t = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
