import { GpioUnavailableError } from '@outpost/gpiochip';
import { ConfigError, createLogger, stopOnSignals, stopSignals } from '@outpost/runtime';
import { MISSING_SECRET, readConfig } from './config.js';
import { type RunningNode, startRelayNode } from './app.js';
import { startWatchdog, type Watchdog } from './system/watchdog.js';

if (!process.env.RELAYNODE_API_SECRET) {
  process.stderr.write(`${MISSING_SECRET}\n`);
  process.exit(1);
}

let config: ReturnType<typeof readConfig>;
try {
  config = readConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  throw err;
}

// Synchronous: the relay OFF line written on every exit path must reach the log.
const logger = createLogger({ service: 'relaynode', level: config.logLevel, sync: true });
let running: RunningNode | null = null;
let watchdog: Watchdog | null = null;

const GRACE_MS = 3_000;
let stopReason = 'shutdown';

/** Relay OFF first (core.stop inside close), then the listeners and the broker connection. */
async function close(): Promise<void> {
  // An asked-for stop is routine; anything else (a crash, a closed session) deserves attention.
  const orderly = stopReason === 'SIGTERM' || stopReason === 'SIGINT';
  logger[orderly ? 'info' : 'warn']({ reason: stopReason }, 'relay node stopping: relay OFF');
  watchdog?.stop();
  await running?.close(stopReason);
}

// Registered before stopOnSignals so the signal's name is known when it calls close().
for (const signal of stopSignals()) {
  process.on(signal, () => {
    if (stopReason === 'shutdown') stopReason = signal;
  });
}
stopOnSignals(logger, close, GRACE_MS);
// A closed terminal or session: the same clean stop (the default action would skip the relay OFF).
process.on('SIGHUP', () => {
  stopReason = 'SIGHUP';
  process.kill(process.pid, 'SIGTERM');
});

/** A crash: relay OFF, then exit 1 (forced after the grace period if closing hangs). */
function crash(kind: 'uncaughtException' | 'unhandledRejection', err: unknown): void {
  logger.fatal({ err }, kind === 'uncaughtException' ? 'uncaught exception' : 'unhandled rejection');
  stopReason = kind;
  setTimeout(() => process.exit(1), GRACE_MS).unref();
  const exit = () => process.exit(1);
  close().then(exit, exit);
}
process.on('uncaughtException', (err) => crash('uncaughtException', err));
process.on('unhandledRejection', (err) => crash('unhandledRejection', err));
// Last resort for paths that skip the handlers above (process.exit elsewhere): synchronous OFF write.
process.on('exit', () => {
  running?.node.stop('exit');
  running?.driver.close();
});

try {
  running = await startRelayNode({ config, logger });
} catch (err) {
  // A GPIO that cannot be had is a site problem, not a crash: one plain line says what to change.
  if (err instanceof GpioUnavailableError) process.stderr.write(`${err.message}\n`);
  else logger.fatal({ err }, 'relay node failed to start');
  running?.driver.close();
  process.exit(1);
}
// Pings start once the node is up; the unit's WatchdogSec leaves room for a slow start.
watchdog = startWatchdog(logger);
