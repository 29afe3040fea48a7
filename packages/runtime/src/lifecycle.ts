import type { Logger } from 'pino';

/**
 * Set by the launcher on the processes it starts. A terminal's Ctrl-C reaches every process of the
 * group at once; a supervised service leaves SIGINT to the launcher, which stops the services one by
 * one in reverse dependency order (controller before relay node, services before the broker) with
 * SIGTERM. A SIGKILL of the group still ends everything, as a power cut would.
 */
export const SUPERVISED_ENV = 'OUTPOST_SUPERVISED';

export function isSupervised(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[SUPERVISED_ENV] === '1';
}

/** The signals that stop this process: SIGTERM always, SIGINT unless the launcher handles it. */
export function stopSignals(env: NodeJS.ProcessEnv = process.env): NodeJS.Signals[] {
  if (!isSupervised(env)) return ['SIGINT', 'SIGTERM'];
  // A listener replaces SIGINT's default action (exit) with nothing.
  if (process.listenerCount('SIGINT') === 0) process.on('SIGINT', () => undefined);
  return ['SIGTERM'];
}

/**
 * Clean shutdown on SIGINT/SIGTERM: runs `close` once (a second signal does not start it again) and
 * exits 0, or 1 when closing fails or takes longer than graceMs.
 */
export function stopOnSignals(logger: Logger, close: () => Promise<unknown>, graceMs = 5000): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => {
      logger.error({ graceMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  for (const signal of stopSignals()) process.on(signal, stop);
}
