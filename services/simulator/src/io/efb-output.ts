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

/** The EFB feed: each XGPS line goes to the broadcast address and/or every listed tablet. */
export class EfbOutput {
  private constructor(
    private readonly sender: UdpSender,
    readonly targets: readonly UdpTarget[],
  ) {}

  static async create(opts: EfbOutputOptions): Promise<EfbOutput> {
    const targets: UdpTarget[] = [];
    if (opts.broadcastAddress) targets.push({ host: opts.broadcastAddress, port: opts.port });
    for (const ip of new Set(opts.ips)) targets.push({ host: ip, port: opts.port });
    const sender = await UdpSender.create({ logger: opts.logger, broadcast: opts.broadcastAddress !== null });
    return new EfbOutput(sender, targets);
  }

  get datagramsSent(): number {
    return this.sender.datagramsSent;
  }

  get sendErrors(): number {
    return this.sender.sendErrors;
  }

  send(line: string): void {
    this.sender.send(line, this.targets);
  }

  close(): Promise<void> {
    return this.sender.close();
  }
}
