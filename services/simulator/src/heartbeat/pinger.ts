import { execFile } from 'node:child_process';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Reachability of one address, probed in the background so a caller never waits on the network. */
export interface Pinger {
  /** The result of the last completed probe; false until one has completed. */
  reachable(): boolean;
  /** Starts a probe unless one is already in flight; returns at once. */
  refresh(): void;
  /** Kills a probe in flight and forgets its result; a later refresh() starts afresh. */
  stop(): void;
  /** Why the last probe could not run (a name that does not resolve), or null. */
  problem?(): string | null;
}

export class SimulatorIpError extends Error {
  constructor(value: string) {
    super(`SIMULATOR_IP must be an IPv4 or IPv6 address or a host name, got "${value.slice(0, 64)}"`);
    this.name = 'SimulatorIpError';
  }
}

// RFC 1123 labels; the last one not all digits, so a mistyped dotted quad is not taken for a name.
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function isHostName(v: string): boolean {
  const name = v.endsWith('.') ? v.slice(0, -1) : v;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  return labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels[labels.length - 1] ?? '');
}

/**
 * SIMULATOR_IP as the heartbeat uses it: empty means "no target"; otherwise an IP literal or a host
 * name. Anything else is refused, so nothing that could reach ping's option parser (a leading `-`,
 * spaces, shell characters) is ever passed on.
 */
export function parseSimulatorIp(value: string | undefined | null): string | null {
  const trimmed = (value ?? '').trim();
  if (trimmed === '') return null;
  if (isIP(trimmed) === 0 && !isHostName(trimmed)) throw new SimulatorIpError(trimmed);
  return trimmed;
}

/** Resolves a host name to one address (the system resolver: /etc/hosts, then DNS). */
export type Lookup = (name: string) => Promise<string>;

const systemLookup: Lookup = async (name) => (await dnsLookup(name)).address;

export interface SystemPingerOptions {
  ip: string;
  /** How long to wait for the echo reply. */
  timeoutMs?: number;
  /** The ping executable; iputils `ping` by default. */
  command?: string;
  /** Called once if the executable cannot be run (missing, not permitted). */
  onUnavailable?: (reason: string) => void;
  /** How a host name becomes an address; the system resolver by default. */
  lookup?: Lookup;
  /** Called when a host name stops resolving (once per failure streak). */
  onUnresolved?: (reason: string) => void;
}

/**
 * ICMP reachability through the system `ping` (iputils: `ping -n -c 1 -W <s> <ip>`), run with execFile
 * (no shell). A host name is resolved again before each probe (a rig whose DHCP address changed is
 * still found); one that does not resolve is unreachable. At most one probe is in flight; results are
 * cached for reachable().
 */
export function createSystemPinger(opts: SystemPingerOptions): Pinger {
  const target = parseSimulatorIp(opts.ip);
  if (target === null) throw new SimulatorIpError(opts.ip);
  const waitSeconds = Math.max(1, Math.round((opts.timeoutMs ?? 1000) / 1000));
  const command = opts.command ?? 'ping';
  const lookup = opts.lookup ?? systemLookup;
  const isName = isIP(target) === 0;
  let last = false;
  let problem: string | null = null;
  let inFlight: ReturnType<typeof execFile> | 'resolving' | null = null;
  // Bumped by stop() so the callback of a killed probe does not overwrite anything.
  let generation = 0;
  let reportedUnavailable = false;

  const probe = (ip: string, mine: number) => {
    // The hard kill covers a ping that ignores -W (e.g. a busybox variant).
    const child = execFile(
      command,
      ['-n', '-c', '1', '-W', String(waitSeconds), ip],
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
  };

  return {
    reachable: () => last,
    problem: () => problem,
    refresh() {
      if (inFlight) return;
      const mine = generation;
      if (!isName) {
        probe(target, mine);
        return;
      }
      inFlight = 'resolving';
      lookup(target).then(
        (ip) => {
          if (mine !== generation) return;
          problem = null;
          // Only an address goes to ping, whatever a resolver answered.
          if (isIP(ip) === 0) {
            inFlight = null;
            last = false;
            return;
          }
          probe(ip, mine);
        },
        (err: NodeJS.ErrnoException) => {
          if (mine !== generation) return;
          inFlight = null;
          last = false;
          const reason = `${target} does not resolve (${err.code ?? err.message})`;
          if (problem === null) opts.onUnresolved?.(reason);
          problem = reason;
        },
      );
    },
    stop() {
      generation++;
      if (inFlight && inFlight !== 'resolving') inFlight.kill('SIGKILL');
      inFlight = null;
    },
  };
}
