import { ConfigError, createLogger, stopOnSignals } from '@outpost/runtime';
import { parseDashboardConfig } from './config.js';
import { startDashboard } from './app.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof parseDashboardConfig>;
  try {
    config = parseDashboardConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ service: 'dashboard', level: config.logLevel });
  if (!config.auth) logger.info('no DASHBOARD_AUTH: anyone who can reach the dashboard sees the fleet view');
  const dashboard = await startDashboard(config, { logger });

  stopOnSignals(logger, () => dashboard.close(), 5000);
}

main().catch((err: Error) => {
  process.stderr.write(`dashboard failed to start: ${err.message}\n`);
  process.exit(1);
});
