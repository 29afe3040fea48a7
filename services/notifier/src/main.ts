import { ConfigError, createLogger, stopOnSignals } from '@outpost/runtime';
import { type NotifierConfig, parseNotifierConfig } from './config.js';
import { type RunningNotifier, startNotifier } from './app.js';

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
  stopOnSignals(logger, () => app.close(), 8000);
}

void main();
