import { ConfigError, createLogger } from '@outpost/runtime';
import { MISSING_SECRET, readConfig } from './config.js';
import { type RunningNode, startRelayNode } from './service.js';

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

const logger = createLogger({ service: 'relaynode', level: config.logLevel });
let running: RunningNode | null = null;

/** Relay OFF on every way out: signals, crashes, and a plain exit. */
async function shutdown(reason: string, code: number): Promise<void> {
  logger.warn({ reason }, 'relay node stopping: relay OFF');
  const force = setTimeout(() => process.exit(code), 3_000);
  force.unref();
  try {
    await running?.close(reason);
  } finally {
    process.exit(code);
  }
}

process.on('SIGINT', () => void shutdown('SIGINT', 0));
process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
process.on('SIGHUP', () => void shutdown('SIGHUP', 0));
process.on('uncaughtException', (err) => {
  logger.fatal({ err }, 'uncaught exception');
  void shutdown('uncaughtException', 1);
});
process.on('unhandledRejection', (err) => {
  logger.fatal({ err }, 'unhandled rejection');
  void shutdown('unhandledRejection', 1);
});
// Last resort for paths that skip the handlers above (process.exit elsewhere): synchronous OFF write.
process.on('exit', () => {
  running?.node.stop('exit');
  running?.driver.close();
});

try {
  running = await startRelayNode({ config, logger });
} catch (err) {
  logger.fatal({ err }, 'relay node failed to start');
  running?.driver.close();
  process.exit(1);
}
