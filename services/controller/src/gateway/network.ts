import ipaddr from 'ipaddr.js';
import { FixedWindowLimiter } from './rate-window.js';

type Addr = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Addr, number];

/** Parsed addresses by their text: a busy gateway sees the same few peers over and over. */
const parsed = new Map<string, { addr: Addr; text: string } | null>();
const PARSED_MAX = 16_384;

/** The address and its canonical text (IPv4-mapped IPv6 as IPv4), or null when not an address. */
function normalize(ip: string): { addr: Addr; text: string } | null {
  let hit = parsed.get(ip);
  if (hit !== undefined) return hit;
  try {
    const addr = ipaddr.process(ip.trim().replace(/^\[|\]$/g, ''));
    hit = { addr, text: addr.toString() };
  } catch {
    hit = null;
  }
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(ip, hit);
  return hit;
}

/** Parses `10.0.0.5, 192.168.1.0/24, ::1` into ranges; throws naming a bad entry. */
export function parseRanges(list: string | undefined, name: string): Range[] {
  if (!list?.trim()) return [];
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      try {
        if (entry.includes('/')) {
          const [addr, bits] = ipaddr.parseCIDR(entry);
          if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
            return [(addr as ipaddr.IPv6).toIPv4Address(), Math.max(0, bits - 96)] as Range;
          }
          return [addr, bits] as Range;
        }
        const addr = ipaddr.process(entry);
        return [addr, addr.kind() === 'ipv4' ? 32 : 128] as Range;
      } catch {
        throw new Error(`${name}: "${entry}" is not an IP address or CIDR range`);
      }
    });
}

export function inRanges(ip: string, ranges: Range[]): boolean {
  const addr = normalize(ip)?.addr;
  if (!addr) return false;
  return ranges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net as never, bits));
}

/** inRanges' answers per list (lists are made once, at start-up): the same few peers come again and again. */
const memberships = new WeakMap<Range[], Map<string, boolean>>();

/** inRanges, remembered for this list. */
export function inRangesMemo(ip: string, ranges: Range[]): boolean {
  let known = memberships.get(ranges);
  if (known === undefined) {
    known = new Map();
    memberships.set(ranges, known);
  }
  let hit = known.get(ip);
  if (hit === undefined) {
    hit = inRanges(ip, ranges);
    if (known.size >= PARSED_MAX) known.clear();
    known.set(ip, hit);
  }
  return hit;
}

/**
 * The client address: the socket peer, or — only when that peer is a trusted proxy — the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trusted: Range[],
): string {
  const direct = peer ? (normalize(peer)?.text ?? peer) : 'unknown';
  if (!peer || trusted.length === 0 || !forwardedFor || !inRangesMemo(peer, trusted)) return direct;
  // One hop (a single proxy in front) needs no list.
  const hops = forwardedFor.includes(',') ? forwardedFor.split(',') : [forwardedFor];
  for (let i = hops.length - 1; i >= 0; i--) {
    const text = (hops[i] as string).trim();
    if (text === '') continue;
    const hop = normalize(text);
    if (!hop) return direct;
    if (!inRangesMemo(hop.text, trusted)) return hop.text;
  }
  return direct;
}

export interface RateLimits {
  apiPerSecond: number;
  authPerMinute: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { apiPerSecond: 30, authPerMinute: 5 };

/**
 * Whom the login limit counts: an IPv4 address, or the /64 of an IPv6 one. A single IPv6 host usually
 * holds a whole /64 and can take a fresh address for every attempt.
 */
export function loginLimitKey(client: string): string {
  const addr = normalize(client)?.addr;
  if (addr?.kind() !== 'ipv6') return client;
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

/**
 * The routes that try a credential (a login, the current password): only these count against the
 * authentication limit. A session check (`/api/auth/me`) or a logout proves nothing new, and a console
 * polling its session must not use up the operator's login attempts.
 */
const CREDENTIAL_PATHS = new Set(['/api/auth/login', '/api/auth/password']);

/**
 * Per-client limits: /api at N per second, credential attempts at M per minute (per /64 for IPv6).
 * Returns seconds to wait, or 0, at once: the check is in memory.
 */
export class RateLimitGate {
  private readonly api: FixedWindowLimiter;
  private readonly auth: FixedWindowLimiter;

  constructor(limits: RateLimits = DEFAULT_RATE_LIMITS) {
    this.api = new FixedWindowLimiter(limits.apiPerSecond, 1000);
    this.auth = new FixedWindowLimiter(limits.authPerMinute, 60_000);
  }

  /** Both limits, as one request meets them (checkApi, then checkCredential). */
  check(path: string, client: string, method = 'POST'): number {
    return this.checkApi(path, client) || this.checkCredential(path, method, client);
  }

  /** The per-second /api limit, before anything else is looked at. */
  checkApi(path: string, client: string): number {
    return path.startsWith('/api/') ? wait(this.api, client) : 0;
  }

  /**
   * The credential limit, for what tries a password: a POST to a credential path. The gateway asks
   * after the bearer check, so a method the path does not have is answered 405 and a password change
   * without a session 401, as the document says, and neither uses up the client's attempts.
   */
  checkCredential(path: string, method: string, client: string): number {
    return CREDENTIAL_PATHS.has(path) && method === 'POST' ? wait(this.auth, loginLimitKey(client)) : 0;
  }
}

/** Seconds to wait (at least 1) when over the limit, else 0. */
function wait(limiter: FixedWindowLimiter, key: string): number {
  const ms = limiter.consume(key);
  return ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : 0;
}
