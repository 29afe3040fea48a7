/**
 * Where the simulator may send UDP: the EFB/GDL 90 tablets, the sender's target and the rebroadcast
 * target. A session may aim at any unicast address it names (a tablet on the LAN, a receiver elsewhere),
 * but the list is bounded in all, so a few range entries cannot fan one position out to thousands of
 * hosts, and broadcast or multicast addresses need ALLOW_BROADCAST_TARGETS (the EFB "Broadcast" option
 * with EFB_BROADCAST_ADDRESS is the one broadcast the simulator makes on its own).
 */
import { expandTargets } from './start-validation.js';

/** All EFB/GDL 90 tablet addresses together, after ranges are expanded. */
export const MAX_EFB_TARGETS = 256;

export interface TargetFields {
  efb_target_ips: readonly string[];
  target_ip: string;
  rebroadcast_udp_ip: string;
}

/**
 * Multicast (224.0.0.0/4), reserved and limited broadcast (240.0.0.0/4), "this network" (0.0.0.0/8),
 * and a last octet of 255, the directed broadcast of the /24 networks most sites use.
 */
export function isBroadcastOrMulticast(ip: string): boolean {
  const octets = ip.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o))) return false;
  const [a, , , d] = octets as [number, number, number, number];
  return a === 0 || a >= 224 || d === 255;
}

/** One line per refused field, naming it; empty when the targets may be used. */
export function targetProblems(net: TargetFields, allowBroadcast: boolean): string[] {
  const out: string[] = [];
  const tablets = expandTargets(net.efb_target_ips);
  if (tablets.length > MAX_EFB_TARGETS)
    out.push(
      `efb_target_ips: at most ${MAX_EFB_TARGETS} addresses in all, ranges expanded (these make ${tablets.length})`,
    );
  if (allowBroadcast) return out;
  const hint = 'a broadcast or multicast address (ALLOW_BROADCAST_TARGETS=true allows it)';
  const bad = tablets.filter(isBroadcastOrMulticast);
  if (bad.length > 0)
    out.push(`efb_target_ips: ${bad.slice(0, 3).join(', ')}${bad.length > 3 ? ', …' : ''} is ${hint}`);
  for (const field of ['target_ip', 'rebroadcast_udp_ip'] as const) {
    if (net[field] && isBroadcastOrMulticast(net[field])) out.push(`${field}: ${net[field]} is ${hint}`);
  }
  return out;
}
