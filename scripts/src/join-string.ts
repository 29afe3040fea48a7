import { createHash } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { PUBLIC_KEY_PATTERN } from '@outpost/runtime/lease-keys';
import { z } from 'zod';
import { JoinedSite } from './secrets.js';

/**
 * The one string a relay node on another host needs: where the controller's broker is, the relay
 * node's broker account, the relay node key, the controller's lease-verifying public key and the site,
 * and with TLS the CA that signed the broker's certificate. Versioned, so a later format can be told
 * apart; base64url, so it survives a shell, a terminal and a copy from a web page; and checksummed
 * (SHA-256 of the body, first 8 bytes), so a changed character is caught before it changes a key.
 */
const PREFIX = 'outpost-join-2.';
const EARLIER_PREFIX = 'outpost-join-1.';

export const JoinPayload = JoinedSite.extend({
  username: z.string().min(1).max(100),
  password: z.string().min(12).max(512),
  key: z.string().min(16).max(512),
  /** The controller's public key: the relay node turns ON only from leases it verifies. */
  controller_key: z.string().regex(PUBLIC_KEY_PATTERN, 'expected the controller public key'),
  ca: z
    .string()
    .max(16_384)
    .regex(/^-----BEGIN CERTIFICATE-----/, 'expected a PEM certificate')
    .optional(),
});
export type JoinPayload = z.infer<typeof JoinPayload>;

export class JoinError extends Error {
  override name = 'JoinError';
}

const checksum = (body: string) =>
  createHash('sha256').update(body).digest().subarray(0, 8).toString('base64url');

export function encodeJoin(payload: JoinPayload): string {
  const body = Buffer.from(JSON.stringify(JoinPayload.parse(payload))).toString('base64url');
  return `${PREFIX}${body}.${checksum(body)}`;
}

export function decodeJoin(text: string): JoinPayload {
  const s = text.trim();
  if (s.startsWith(EARLIER_PREFIX)) {
    throw new JoinError(
      'this join string is from an earlier version, without the controller key: run `npm run join-token` on the controller host again',
    );
  }
  if (!s.startsWith(PREFIX)) {
    throw new JoinError('not an Outpost join string (run `npm run join-token` on the controller host)');
  }
  const [body = '', sum = '', ...rest] = s.slice(PREFIX.length).split('.');
  if (rest.length > 0 || sum !== checksum(body)) {
    throw new JoinError('the join string is damaged: its checksum does not match (copy it again, whole)');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw new JoinError('the join string is damaged (copy it again, whole)');
  }
  const parsed = JoinPayload.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new JoinError(`the join string is damaged: ${issue?.path.join('.')} ${issue?.message}`);
  }
  return parsed.data;
}

const LOOPBACK = /^(127\.|::1$|localhost$|\[::1\]$)/;

export const isLoopbackHost = (host: string) => LOOPBACK.test(host);

/** This host's first non-internal IPv4 address, the one another host on the LAN most likely reaches. */
export function lanAddress(): string | undefined {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

/**
 * The broker URL to hand to a relay node: an explicit URL, else an external broker's URL without its
 * credentials, else the embedded broker on the address it listens on (a wildcard bind becomes this
 * host's LAN address).
 */
export function brokerUrlForJoin(opts: {
  explicit?: string | undefined;
  external?: string | undefined;
  embedded?: { host: string; port: number; tls?: boolean } | undefined;
}): string {
  if (opts.explicit) return opts.explicit;
  if (opts.external) {
    const u = new URL(opts.external);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  }
  const bind = opts.embedded?.host ?? '0.0.0.0';
  const host = bind === '0.0.0.0' || bind === '::' ? (lanAddress() ?? '127.0.0.1') : bind;
  const shown = host.includes(':') ? `[${host}]` : host;
  return `${opts.embedded?.tls ? 'mqtts' : 'mqtt'}://${shown}:${opts.embedded?.port ?? 1883}`;
}
