import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where a service may send what a user configured (webhooks, notification channels, a relay node's
 * notifier URLs). Public addresses are allowed. Loopback, link-local, private and other special ranges
 * are refused unless listed in OUTBOUND_ALLOWED_NETWORKS (a LAN receiver, a test's local server); the
 * cloud metadata addresses are refused whatever that says. Otherwise a user of the console could make
 * the controller reach the services on its own host, or read instance credentials.
 */

type Addr = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Addr, number];

export interface OutboundPolicy {
  allowed: Range[];
}

/** Always refused: instance metadata services (AWS, GCP, Azure, ECS task role, Alibaba). */
const METADATA = ['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200'].map((a) =>
  ipaddr.parse(a).toString(),
);

/** Parses OUTBOUND_ALLOWED_NETWORKS (`192.168.1.0/24, 10.0.0.7, ::1`); throws naming a bad entry. */
export function outboundPolicy(list?: string): OutboundPolicy {
  const allowed = (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry): Range => {
      try {
        if (entry.includes('/')) return ipaddr.parseCIDR(entry) as Range;
        const addr = ipaddr.parse(entry);
        return [addr, addr.kind() === 'ipv4' ? 32 : 128];
      } catch {
        throw new Error(`OUTBOUND_ALLOWED_NETWORKS: "${entry}" is not an IP address or CIDR range`);
      }
    });
  return { allowed };
}

/** Why `address` may not be reached, in a few words, or null when it may. */
export function refusedAddress(address: string, policy: OutboundPolicy): string | null {
  let addr: Addr;
  try {
    addr = ipaddr.process(address);
  } catch {
    return 'not an address';
  }
  if (METADATA.includes(addr.toString())) return 'metadata address';
  const range = addr.range();
  if (range === 'unicast') return null;
  if (policy.allowed.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net as never, bits)))
    return null;
  return `${range} address`;
}

/**
 * Resolves `host` and checks every address it has. Null when all may be reached; else a short reason
 * without the host, fit to show a user ("loopback address not allowed").
 */
export async function checkOutboundHost(host: string, policy: OutboundPolicy): Promise<string | null> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (ipaddr.isValid(bare)) addresses = [bare];
  else {
    try {
      addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return 'host not found';
    }
  }
  for (const a of addresses) {
    const why = refusedAddress(a, policy);
    if (why) return `${why} not allowed (OUTBOUND_ALLOWED_NETWORKS)`;
  }
  return null;
}

/** The same for a URL's host. */
export function checkOutboundUrl(url: string, policy: OutboundPolicy): Promise<string | null> {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return Promise.resolve('not a URL');
  }
  return checkOutboundHost(host, policy);
}
