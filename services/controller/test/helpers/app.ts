import { ManualClock } from '@outpost/runtime/clock';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import type { Database } from '../../src/db/connection.js';
import { buildGateway, type GatewayOptions } from '../../src/gateway/gateway.js';
import { MockGpio } from '../../src/inputs/mock-gpio.js';
import type { EventSink } from '../../src/outbox/dispatcher.js';
import {
  type ControllerService,
  createControllerService,
  type ServiceConfig,
} from '../../src/controller-service.js';
import { FakeRelay } from './harness.js';

export const ADMIN = { username: 'admin', password: 'correct horse battery' };

// Users survive the reset: hashing a password costs a third of a second here.
const TABLES = [
  'controller_state',
  'settings',
  'runs',
  'schedules',
  'exercise_schedule',
  'webhook_deliveries',
  'webhooks',
  'outbox',
  'audit_log',
  'exercise_reports',
  'start_conditions',
];

/** Empties every controller table so each test starts from a fresh install on the shared database. */
export async function resetTables(database: Database): Promise<void> {
  await database.db.execute(
    sql.raw(`truncate ${TABLES.map((t) => `controller.${t}`).join(', ')} restart identity cascade`),
  );
}

export interface TestAppOptions {
  config?: Partial<ServiceConfig>;
  gateway?: Partial<GatewayOptions>;
  eventSink?: EventSink | null;
  clock?: ManualClock;
  reset?: boolean;
}

const tokens = new WeakMap<Database, string>();

/** The controller service and gateway on a real database, a manual clock and mock GPIO. */
export async function testApp(database: Database, opts: TestAppOptions = {}) {
  if (opts.reset !== false) await resetTables(database);
  const clock = opts.clock ?? new ManualClock(Date.now());
  const relay = new FakeRelay();
  const gpio = new MockGpio();
  const logger = pino({ level: 'silent' });
  const svc: ControllerService = await createControllerService({
    database,
    clock,
    logger,
    relay,
    gpio,
    eventSink: opts.eventSink ?? null,
    config: {
      controllerId: 'main',
      timezone: 'UTC',
      jwtSecret: 'test-secret-test-secret-test-secret',
      tokenTtlSeconds: 7 * 86400,
      hoaBootDelaySeconds: 0,
      hoaEnabled: true,
      heartbeatIntervalSeconds: 10,
      version: '0.0.0-test',
      // The tests' receivers are on loopback, which webhooks may not reach by default.
      outboundAllowedNetworks: '127.0.0.0/8,::1',
      ...opts.config,
    },
  });
  await svc.auth.ensureAdmin(ADMIN.username, ADMIN.password);
  const app = buildGateway(svc, {
    logger,
    rateLimits: { apiPerSecond: 10_000, authPerMinute: 10_000 },
    // The suites drive the mock inputs through /api/dev/* (DEV_MODE=true in a real start).
    devMode: true,
    ...opts.gateway,
  });
  let token = '';
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (token && !('authorization' in headers))
      (init.headers as Record<string, string>).authorization = `Bearer ${token}`;
    if (body !== undefined) {
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await app.request(path, init);
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: tests inspect JSON bodies freely
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, body: json, headers: res.headers };
  };
  const login = async () => {
    const res = await request('POST', '/api/auth/login', ADMIN, { authorization: '' });
    token = res.body.access_token;
    return token;
  };
  const cached = tokens.get(database);
  if (cached && (await svc.auth.verify(cached))) token = cached;
  else tokens.set(database, await login());
  return {
    svc,
    app,
    clock,
    relay,
    gpio,
    request,
    login,
    setToken: (t: string) => {
      token = t;
    },
    get token() {
      return token;
    },
    close: () => svc.close(),
  };
}

export type TestApp = Awaited<ReturnType<typeof testApp>>;
