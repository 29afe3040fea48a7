import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseUrls } from '@outpost/notify';
import { createLogger, type Logger } from '@outpost/runtime';
import type { Clock } from '@outpost/runtime/clock';
import type { RelaynodeConfig } from '../src/config.js';
import { MockIO } from '../src/hardware/mock-io.js';
import type { IOPlugin } from '../src/hardware/relay-driver.js';
import { startRelayNode } from '../src/service.js';

export const SECRET = 'test-secret-0123456789';

export function testConfig(over: Partial<RelaynodeConfig> = {}): RelaynodeConfig {
  return {
    apiSecret: SECRET,
    failsafeTimeoutSeconds: 30,
    mockHat: true,
    gpioMode: 'mock',
    notifierUrls: [],
    host: '127.0.0.1',
    port: 0,
    id: 'main',
    hardwareSafety: true,
    relayPin: 'GPIO16',
    relayActiveLow: false,
    epoPin: 'GPIO26',
    epoActiveLow: false,
    dataDir: mkdtempSync(join(tmpdir(), 'relaynode-data-')),
    logLevel: 'silent',
    mqtt: { url: undefined, username: undefined, password: undefined, prefix: 'outpost' },
    ...over,
  };
}

export async function startTestNode(
  opts: {
    config?: Partial<RelaynodeConfig>;
    clock?: Clock;
    baseUrls?: BaseUrls;
    /** Defaults to a silent logger. */
    logger?: Logger;
    systemBusAddress?: string;
  } = {},
) {
  const config = testConfig(opts.config);
  const io = new MockIO();
  const running = await startRelayNode({
    config,
    logger: opts.logger ?? createLogger({ service: 'relaynode', level: 'silent' }),
    io: { io: io as unknown as IOPlugin, kind: 'mock', mock: io },
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.baseUrls ? { baseUrls: opts.baseUrls } : {}),
    ...(opts.systemBusAddress ? { systemBusAddress: opts.systemBusAddress } : {}),
  });
  const url = running.server!.url;
  const api = async (method: string, path: string, body?: unknown, key: string | null = SECRET) => {
    const headers: Record<string, string> = {};
    if (key !== null) headers['x-api-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, body: json as Record<string, unknown> };
  };
  return {
    ...running,
    io,
    config,
    url,
    api,
    async stop() {
      await running.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}
