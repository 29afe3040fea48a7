import { freemem, loadavg, totalmem, uptime } from 'node:os';
import { createRoute } from '@hono/zod-openapi';
import { createApp, type Logger, type MetricsAuth, type OutpostApp } from '@outpost/runtime';
import { z } from 'zod';
import type { NodeAdmin } from '../admin.js';
import type { RelayNode } from '../domain/relay-node.js';
import type { NetworkManagerWifi } from '../system/wifi.js';
import { mountAdminRoutes } from './admin-routes.js';
import { apiKeyAuth, hasApiKey } from './auth.js';
import { type DevContext, mountDevRoutes } from './dev-routes.js';
import { registerNodeMetrics } from './metrics.js';
import { authErrors, json, security } from './openapi.js';
import { mountRelayRoutes } from './relay-routes.js';
import { mountSystemRoutes } from './system-routes.js';

export interface GatewayOptions {
  logger: Logger;
  version: string;
  apiSecret: string;
  node: RelayNode;
  admin: NodeAdmin;
  wifi: NetworkManagerWifi | null;
  mock: boolean;
  /** CONTROLLER_PUBLIC_KEY is set. */
  keyConfigured: boolean;
  /** Mock hardware and DEV_MODE=true: /api/dev/*. */
  dev: DevContext | null;
  metricsAuth?: MetricsAuth | null;
  brokerState: () => 'connected' | 'disconnected' | 'not_used';
}

export function buildGateway(o: GatewayOptions): OutpostApp {
  const keyOk = hasApiKey(o.apiSecret);
  const app = createApp({
    service: 'relaynode',
    version: o.version,
    logger: o.logger,
    title: 'Outpost relay node',
    description: 'Drives the generator start relay; every /api endpoint needs the X-API-Key header.',
    health: () => ({
      broker: o.brokerState(),
      relay_on: o.node.isRelayOn,
      failsafe_triggered: o.node.failsafeStatus().failsafe_triggered,
    }),
    // Relay and failsafe state tell a passer-by when the generator can be started: key holders only.
    healthDetail: (c) => keyOk(c.req.header('x-api-key')),
    metricsAuth: o.metricsAuth ?? null,
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
  });
  app.use('/api/*', apiKeyAuth(o.apiSecret));

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/health',
      tags: ['health'],
      security,
      summary: 'Health check with system status',
      responses: { 200: json(z.record(z.string(), z.unknown())), ...authErrors },
    }),
    (c) =>
      c.json(
        {
          status: 'healthy',
          service: 'relaynode',
          version: o.version,
          mock_mode: o.mock,
          broker: o.brokerState(),
          relay: o.node.relayState(),
          failsafe: o.node.failsafeStatus(),
          system: {
            uptime_seconds: Math.floor(uptime()),
            load_average: loadavg().map((v) => Math.round(v * 100) / 100),
            memory_percent: Math.round(((totalmem() - freemem()) / totalmem()) * 1000) / 10,
          },
        },
        200,
      ),
  );

  mountRelayRoutes(app, o.node, { mock: o.mock, keyConfigured: o.keyConfigured });
  mountSystemRoutes(app, o.admin, o.wifi);
  mountAdminRoutes(app, o.admin);
  if (o.dev) mountDevRoutes(app, o.dev);
  registerNodeMetrics(app, o.node);
  return app;
}
