import { createApp, type MetricsAuth, type OutpostApp } from '@outpost/runtime';
import type { Logger } from 'pino';
import type { NotifierService } from '../domain/service.js';
import type { NotifierRepo } from '../domain/types.js';
import { requireServiceToken, serviceTokenValid } from './auth.js';
import { mountRoutes } from './routes.js';

export interface GatewayOptions {
  logger: Logger;
  service: NotifierService;
  repo: NotifierRepo;
  /** NOTIFIER_API_SECRET: the key the controller signs its calls with. Required: the API never opens. */
  apiSecret: string;
  health: () => Promise<Record<string, unknown>>;
  version: string;
  /** METRICS_TOKEN / METRICS_BASIC_AUTH (null: /metrics is open). */
  metricsAuth?: MetricsAuth | null;
}

export function createGateway(o: GatewayOptions): OutpostApp {
  const tokenOk = serviceTokenValid(o.apiSecret);
  const app = createApp({
    service: 'notifier',
    version: o.version,
    logger: o.logger,
    title: 'Outpost notifier',
    description: 'Notification channels, groups, per-event settings and delivery history.',
    health: o.health,
    healthDetail: (c) => tokenOk(c.req.header('authorization')),
    metricsAuth: o.metricsAuth ?? null,
    // Every operation needs the controller's service token (the middleware below).
    security: {
      schemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      required: [{ bearer: [] }],
    },
  });
  if (o.apiSecret.length === 0) throw new Error('the notifier API needs NOTIFIER_API_SECRET');
  const auth = requireServiceToken(o.apiSecret);
  app.use('/api/notifications/*', auth);
  app.use('/api/notifications', auth);
  app.use('/api/system-notifications/*', auth);
  app.use('/api/system-notifications', auth);
  mountRoutes(app, o.service, o.repo);
  return app;
}
