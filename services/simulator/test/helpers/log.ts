import { createLogger } from '@outpost/runtime';

export const silentLogger = createLogger({
  service: 'simulator-test',
  level: process.env.TEST_LOG_LEVEL ?? 'silent',
});
