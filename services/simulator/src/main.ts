import { randomBytes } from 'node:crypto';
import { ConfigError, createLogger, stopOnSignals } from '@outpost/runtime';
import { AutoStartConfigError } from './app/auto-start.js';
import { SimulatorIpError } from './heartbeat/index.js';
import { startSimulator } from './app/simulator-app.js';
import { parseSimulatorConfig } from './config.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof parseSimulatorConfig>;
  try {
    config = parseSimulatorConfig(process.env, () => randomBytes(12).toString('base64url'));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ service: 'simulator', level: config.LOG_LEVEL });

  if (config.passwordGenerated) {
    // Printed once, outside the logger (which redacts passwords), so the operator can log in.
    process.stdout.write(
      `simulator: PASSWORD is not set; log in as "${config.USERNAME}" with the generated password: ${config.password}\n`,
    );
  }
  if (config.BYPASS_AUTH) {
    logger.warn(
      '!!! BYPASS_AUTH=true: every /api/* endpoint accepts every request without a session. Never expose this simulator. !!!',
    );
  }

  let app: Awaited<ReturnType<typeof startSimulator>>;
  try {
    app = await startSimulator({ config, logger });
  } catch (err) {
    if (err instanceof AutoStartConfigError || err instanceof SimulatorIpError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    logger.fatal({ err }, 'simulator failed to start');
    process.exit(1);
  }

  stopOnSignals(logger, () => app.close(), 5000);
}

void main();
