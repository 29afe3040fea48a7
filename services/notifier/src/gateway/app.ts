import { createApp, type OutpostApp } from '@outpost/runtime';
import type { Logger } from 'pino';
import type { NotifierService } from '../domain/service.js';
import type { NotifierRepo } from '../domain/types.js';
import { requireBearer } from './auth.js';
import { mountRoutes } from './routes.js';

export interface GatewayOptions {
  logger: Logger;
  service: NotifierService;
  repo: NotifierRepo;
  /** Unset: the API is open (a warning is logged at startup). */
  jwtSecret?: string | undefined;
  health: () => Promise<Record<string, unknown>>;
  version: string;
}

export function createGateway(o: GatewayOptions): OutpostApp {
  const app = createApp({
    service: 'notifier',
    version: o.version,
    logger: o.logger,
    title: 'Outpost notifier',
    description: 'Notification channels, groups, per-event settings and delivery history.',
    health: o.health,
  });
  if (o.jwtSecret) {
    const auth = requireBearer(o.jwtSecret);
    app.use('/api/notifications/*', auth);
    app.use('/api/notifications', auth);
    app.use('/api/system-notifications/*', auth);
    app.use('/api/system-notifications', auth);
  }
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  mountRoutes(app, o.service, o.repo);
  return app;
}
