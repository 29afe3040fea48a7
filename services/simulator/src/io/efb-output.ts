import type { Logger } from '@outpost/runtime';
import { UdpSender, type UdpTarget } from './udp-sender.js';

export interface EfbOutputOptions {
  logger: Logger;
  port: number;
  /** Set when broadcast is checked: the address the line is broadcast to. */
  broadcastAddress: string | null;
  /** Already-expanded unicast targets (ranges turned into single addresses). */
  ips: readonly string[];
}

function targetsOf(port: number, broadcastAddress: string | null, ips: readonly string[]): UdpTarget[] {
  const targets: UdpTarget[] = [];
  if (broadcastAddress) targets.push({ host: broadcastAddress, port });
  for (const ip of new Set(ips)) targets.push({ host: ip, port });
  return targets;
}

/**
 * An EFB feed (XGPS lines, or GDL 90 frames on their own port): each datagram goes to the broadcast address and/or every listed tablet. The target
 * list can change between two lines without touching the socket, so adding a tablet never
 * interrupts the others.
 */
export class EfbOutput {
  private constructor(
    private readonly sender: UdpSender,
    private readonly port: number,
    public targets: readonly UdpTarget[],
  ) {}

  static async create(opts: EfbOutputOptions): Promise<EfbOutput> {
    const sender = await UdpSender.create({ logger: opts.logger });
    const out = new EfbOutput(sender, opts.port, []);
    out.setTargets(opts.broadcastAddress, opts.ips);
    return out;
  }

  setTargets(broadcastAddress: string | null, ips: readonly string[]): void {
    // The socket needs the broadcast permission only while a broadcast address is a target.
    this.sender.setBroadcast(broadcastAddress !== null);
    this.targets = targetsOf(this.port, broadcastAddress, ips);
  }

  get datagramsSent(): number {
    return this.sender.datagramsSent;
  }

  get sendErrors(): number {
    return this.sender.sendErrors;
  }

  /** One datagram to every target: an XGPS line or a GDL 90 frame. */
  send(payload: string | Uint8Array): void {
    this.sender.send(payload, this.targets);
  }

  close(): Promise<void> {
    return this.sender.close();
  }
}
