import { ConfigError, createLogger } from '@outpost/runtime';
import { type NotifierConfig, parseNotifierConfig } from './config.js';
import { type RunningNotifier, startNotifier } from './notifier-app.js';

async function main(): Promise<void> {
  let config: NotifierConfig;
  try {
    config = parseNotifierConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ service: 'notifier', level: config.LOG_LEVEL });
  let app: RunningNotifier;
  try {
    app = await startNotifier({ config, logger });
  } catch (err) {
    logger.fatal({ err }, 'notifier failed to start');
    process.exit(1);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 8000);
    force.unref();
    app
      .close()
      .then(() => process.exit(0))
      .catch(() => process.exit(1));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

void main();
