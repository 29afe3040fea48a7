import type { Logger } from 'pino';

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
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
