import { execFile } from 'node:child_process';

export interface WatchdogLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface Watchdog {
  /** Milliseconds between two pings. */
  readonly intervalMs: number;
  stop(): void;
}

/**
 * systemd's watchdog (WatchdogSec= in the unit): WATCHDOG=1 at half the interval systemd asks for
 * in WATCHDOG_USEC. A wedged event loop stops the pings, systemd kills the node, and the unit's
 * ExecStopPost= drives the relay OFF. Returns null when no watchdog is asked for.
 *
 * sd_notify needs a unix datagram socket, which Node cannot open without a native addon; the
 * packages that wrap one (sd-notify, unix-dgram) need a compiler on the Pi. So the ping goes through
 * systemd's own `systemd-notify`, which waits until the manager has taken it (so its exit cannot
 * race the message); the unit sets NotifyAccess=all to accept it from that child.
 */
export function startWatchdog(
  log: WatchdogLog,
  env: NodeJS.ProcessEnv = process.env,
  command = 'systemd-notify',
): Watchdog | null {
  const socket = env.NOTIFY_SOCKET;
  const usec = Number(env.WATCHDOG_USEC);
  if (!socket || !Number.isFinite(usec) || usec <= 0) return null;
  // Meant for another process of the unit (e.g. a wrapper that exec'ed us under another pid).
  if (env.WATCHDOG_PID && Number(env.WATCHDOG_PID) !== process.pid) return null;
  const intervalMs = Math.max(50, Math.floor(usec / 2000));
  let failing = false;
  const ping = () => {
    execFile(
      command,
      ['WATCHDOG=1'],
      { env: { NOTIFY_SOCKET: socket, PATH: env.PATH ?? '/usr/bin:/bin' }, timeout: intervalMs },
      (err) => {
        // One line when pings start failing and one when they work again, never one per ping.
        if (err && !failing) log.warn({ err: err.message }, 'watchdog ping failed (systemd-notify)');
        else if (!err && failing) log.info({}, 'watchdog pings work again');
        failing = Boolean(err);
      },
    );
  };
  ping();
  const timer = setInterval(ping, intervalMs);
  log.info({ interval_ms: intervalMs }, 'systemd watchdog: pinging');
  return {
    intervalMs,
    stop: () => clearInterval(timer),
  };
}
