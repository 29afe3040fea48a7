import { execFile } from 'node:child_process';
import { isIP } from 'node:net';

/** Reachability of one address, probed in the background so a caller never waits on the network. */
export interface Pinger {
  /** The result of the last completed probe; false until one has completed. */
  reachable(): boolean;
  /** Starts a probe unless one is already in flight; returns at once. */
  refresh(): void;
  /** Kills a probe in flight and forgets its result; a later refresh() starts afresh. */
  stop(): void;
}

export class SimulatorIpError extends Error {
  constructor(value: string) {
    super(`SIMULATOR_IP must be an IPv4 or IPv6 address literal, got "${value.slice(0, 64)}"`);
    this.name = 'SimulatorIpError';
  }
}

/**
 * SIMULATOR_IP as the heartbeat uses it: empty means "no target"; anything else must be an IP literal.
 * A host name is refused so the probe never depends on DNS and nothing reaches ping's option parser.
 */
export function parseSimulatorIp(value: string | undefined | null): string | null {
  const trimmed = (value ?? '').trim();
  if (trimmed === '') return null;
  if (isIP(trimmed) === 0) throw new SimulatorIpError(trimmed);
  return trimmed;
}

export interface SystemPingerOptions {
  ip: string;
  /** How long to wait for the echo reply. */
  timeoutMs?: number;
  /** The ping executable; iputils `ping` by default. */
  command?: string;
  /** Called once if the executable cannot be run (missing, not permitted). */
  onUnavailable?: (reason: string) => void;
}

/**
 * ICMP reachability through the system `ping` (iputils: `ping -n -c 1 -W <s> <ip>`), run with execFile
 * (no shell). At most one probe is in flight; results are cached for reachable().
 */
export function createSystemPinger(opts: SystemPingerOptions): Pinger {
  const ip = parseSimulatorIp(opts.ip);
  if (ip === null) throw new SimulatorIpError(opts.ip);
  const waitSeconds = Math.max(1, Math.round((opts.timeoutMs ?? 1000) / 1000));
  const command = opts.command ?? 'ping';
  const args = ['-n', '-c', '1', '-W', String(waitSeconds), ip];
  let last = false;
  let inFlight: ReturnType<typeof execFile> | null = null;
  // Bumped by stop() so the callback of a killed probe does not overwrite anything.
  let generation = 0;
  let reportedUnavailable = false;

  return {
    reachable: () => last,
    refresh() {
      if (inFlight) return;
      const mine = generation;
      // The hard kill covers a ping that ignores -W (e.g. stuck resolving or a busybox variant).
      const child = execFile(
        command,
        args,
        {
          timeout: waitSeconds * 1000 + 1000,
          windowsHide: true,
          env: { LC_ALL: 'C', PATH: process.env.PATH ?? '' },
        },
        (err) => {
          if (mine !== generation) return;
          inFlight = null;
          const code = (err as NodeJS.ErrnoException | null)?.code;
          if (typeof code === 'string' && !reportedUnavailable) {
            reportedUnavailable = true;
            opts.onUnavailable?.(`${command}: ${code}`);
          }
          last = err === null;
        },
      );
      inFlight = child;
    },
    stop() {
      generation++;
      inFlight?.kill('SIGKILL');
      inFlight = null;
    },
  };
}
