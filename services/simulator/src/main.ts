import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { ConfigError, createLogger, stopOnSignals } from '@outpost/runtime';
import { type KeptPassword, keptPassword, PASSWORD_FILE } from './app/password-file.js';
import { SimulatorIpError } from './heartbeat/index.js';
import { startSimulator } from './app.js';
import { parseSimulatorConfig } from './config.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof parseSimulatorConfig>;
  let kept: KeptPassword | null = null;
  try {
    config = parseSimulatorConfig(process.env, (env) => {
      kept = keptPassword(resolve(join(env.DATA_DIR, PASSWORD_FILE)), () =>
        randomBytes(12).toString('base64url'),
      );
      return kept.password;
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    if ((err as NodeJS.ErrnoException).code) {
      process.stderr.write(
        `PASSWORD is not set and the generated one cannot be kept: ${(err as Error).message}\n`,
      );
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ service: 'simulator', level: config.LOG_LEVEL });

  const stored = kept as KeptPassword | null;
  if (stored?.created) {
    // Printed once, outside the logger (which redacts passwords), so the operator can log in.
    process.stdout.write(
      `simulator: PASSWORD is not set; log in as "${config.USERNAME}" with the generated password: ${stored.password} (kept in ${stored.path})\n`,
    );
  } else if (stored) {
    logger.info({ file: stored.path }, 'PASSWORD is not set; using the generated password kept in DATA_DIR');
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
    if (err instanceof SimulatorIpError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    logger.fatal({ err }, 'simulator failed to start');
    process.exit(1);
  }

  stopOnSignals(logger, () => app.close(), 5000);
}

void main();
