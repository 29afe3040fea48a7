import { createLogger, loadConfig, stopOnSignals } from '@outpost/runtime';
import { checkNotifier, checkRelaynodeRest, ControllerEnv } from './config.js';
import { startController } from './app.js';

async function main(): Promise<void> {
  const env = loadConfig(ControllerEnv);
  const restProblem = checkRelaynodeRest(env) ?? checkNotifier(env);
  if (restProblem) {
    process.stderr.write(`${restProblem}\n`);
    process.exit(1);
  }
  const logger = createLogger({ service: 'controller', level: env.LOG_LEVEL });
  const running = await startController(env, { logger });
  stopOnSignals(logger, () => running.close(), 10_000);
}

main().catch((err: unknown) => {
  process.stderr.write(`controller failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
