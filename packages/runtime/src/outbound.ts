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

/** ipaddr.js's range names, as a user reads them. */
const RANGE_NAMES: Record<string, string> = {
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  carrierGradeNat: 'carrier-grade NAT',
  ipv4Mapped: 'IPv4-mapped',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64',
  '6to4': '6to4',
  teredo: 'Teredo',
};

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
  return `${RANGE_NAMES[range] ?? range} address`;
}

async function addressesOf(host: string): Promise<string[] | null> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(bare)) return [bare];
  try {
    return (await lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return null;
  }
}

/**
 * The policy's refusal of `host`, naming the address and the variable that opens it
 * ("loopback address 127.0.0.1 not allowed (OUTBOUND_ALLOWED_NETWORKS)"), or null. A host that does not
 * resolve now is not refused here: a receiver may be offline while it is configured.
 */
export async function policyRefusal(host: string, policy: OutboundPolicy): Promise<string | null> {
  return firstRefused((await addressesOf(host)) ?? [], policy);
}

function firstRefused(addresses: string[], policy: OutboundPolicy): string | null {
  for (const a of addresses) {
    const why = refusedAddress(a, policy);
    if (why) return `${why} ${ipaddr.process(a).toString()} not allowed (OUTBOUND_ALLOWED_NETWORKS)`;
  }
  return null;
}

/** The same for a URL's host; null for what is not a URL (schemas say so). */
export function urlPolicyRefusal(url: string, policy: OutboundPolicy): Promise<string | null> {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return Promise.resolve(null);
  }
  return policyRefusal(host, policy);
}

/**
 * Resolves `host` and checks every address it has, before a connection. Null when all may be reached;
 * else a short reason fit to show a user: "host not found", or the policy's refusal naming the address.
 */
export async function checkOutboundHost(host: string, policy: OutboundPolicy): Promise<string | null> {
  const addresses = await addressesOf(host);
  return addresses === null ? 'host not found' : firstRefused(addresses, policy);
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
