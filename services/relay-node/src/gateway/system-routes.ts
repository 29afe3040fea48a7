import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { relaynode } from '@outpost/contracts';
import { HttpError } from '@outpost/runtime';
import { z } from 'zod';
import type { NodeAdmin } from '../admin.js';
import { BusUnavailable } from '../system/dbus.js';
import { readSystemInfo } from '../system/info.js';
import { type NetworkManagerWifi, WifiError } from '../system/wifi.js';
import { authErrors, body, ErrorBody, json, security } from './openapi.js';

const tags = ['system'];
const Loose = z.record(z.string(), z.unknown());
const WifiResult = z.object({
  ssid: z.string(),
  connection: z.string(),
  active_connection: z.string().optional(),
  auto_connect: z.boolean().optional(),
});

export function mountSystemRoutes(app: OpenAPIHono, admin: NodeAdmin, wifi: NetworkManagerWifi | null): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/system',
      tags,
      security,
      summary: 'CPU, RAM, disk, network, temperature',
      responses: { 200: json(Loose), ...authErrors },
    }),
    async (c) => c.json((await readSystemInfo()) as unknown as Record<string, unknown>, 200),
  );

  for (const action of ['reboot', 'shutdown'] as const) {
    app.openapi(
      createRoute({
        method: 'post',
        path: `/api/system/${action}`,
        tags,
        security,
        summary: `${action === 'reboot' ? 'Reboot' : 'Shut down'} the device (body {"confirm": true}; refused while the relay is ON)`,
        request: body(relaynode.PowerRequest),
        responses: {
          200: json(z.object({ status: z.string() })),
          409: json(ErrorBody, 'Relay is ON'),
          ...authErrors,
        },
      }),
      async (c) => c.json(await admin.power(action), 200),
    );
  }

  const needWifi = (): NetworkManagerWifi => {
    if (!wifi) throw new HttpError(503, 'WiFi management is not available (no system message bus)');
    return wifi;
  };
  const wifiCall = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof HttpError) throw err;
      if (err instanceof WifiError) throw new HttpError(err.status, err.message);
      if (err instanceof BusUnavailable) throw new HttpError(503, err.message);
      throw new HttpError(502, `NetworkManager error: ${(err as Error).message}`);
    }
  };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/system/wifi/scan',
      tags,
      security,
      summary: 'Scan for WiFi networks',
      responses: {
        200: json(z.object({ networks: z.array(relaynode.WifiNetwork) })),
        503: json(ErrorBody),
        ...authErrors,
      },
    }),
    async (c) => c.json({ networks: await wifiCall(() => needWifi().scan()) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/system/wifi/add',
      tags,
      security,
      summary: 'Pre-configure a WiFi network',
      request: body(relaynode.WifiAddRequest),
      responses: { 200: json(WifiResult), 503: json(ErrorBody), ...authErrors },
    }),
    async (c) => {
      const b = c.req.valid('json');
      return c.json(await wifiCall(() => needWifi().add(b)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/system/wifi/connect',
      tags,
      security,
      summary: 'Connect to a WiFi network now',
      request: body(relaynode.WifiConnectRequest),
      responses: { 200: json(WifiResult), 404: json(ErrorBody), 503: json(ErrorBody), ...authErrors },
    }),
    async (c) => {
      const b = c.req.valid('json');
      return c.json(await wifiCall(() => needWifi().connect(b)), 200);
    },
  );
}
