import { createLogger } from '@outpost/runtime';
import WebSocket from 'ws';
import type { DashboardConfig } from '../src/config.js';

export const silentLogger = createLogger({
  service: 'dashboard-test',
  level: process.env.TEST_LOG_LEVEL ?? 'silent',
});

export function testConfig(over: Partial<DashboardConfig> & { mqttUrl: string }): DashboardConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    prefix: 'outpost',
    serviceId: 'main',
    logLevel: 'silent',
    expectedSimulators: [],
    expectedSites: [],
    auth: null,
    sites: { public: false, auth: null },
    publish: true,
    maxSimulators: 10_000,
    maxWsClients: 100,
    allowedOrigins: [],
    metricsAuth: null,
    map: {},
    ...over,
  };
}

export async function waitFor<T>(
  fn: () => T | null | undefined | false,
  ms = 5000,
  what = 'condition',
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A WebSocket client that queues every text message it receives. */
export async function openWs(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket; messages: unknown[]; next: (ms?: number) => Promise<unknown> }> {
  const ws = new WebSocket(url, { headers });
  const messages: unknown[] = [];
  let seen = 0;
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  const next = async (ms = 3000) => {
    await waitFor(() => messages.length > seen, ms, 'a WebSocket message');
    return messages[seen++];
  };
  return { ws, messages, next };
}
