import { startBroker } from '@outpost/broker';
import { notifier } from '@outpost/contracts';
import type { BaseUrls } from '@outpost/notification-senders';
import { createLogger } from '@outpost/runtime';
import type { Clock } from '@outpost/runtime/clock';
import { SignJWT } from 'jose';
import mqtt from 'mqtt';
import { parseNotifierConfig } from '../../src/config.js';
import { type RunningNotifier, startNotifier } from '../../src/app.js';
import { freshPostgres } from './databases.js';

export const NOTIFIER_API_SECRET = 'test-service-key-for-the-notifier-0123456789';
const { issuer, audience } = notifier.SERVICE_TOKEN;

/** A service token as the controller signs one; the claims can be changed to forge a bad one. */
export async function token(
  secret = NOTIFIER_API_SECRET,
  alg = 'HS256',
  claims: { iss?: string; aud?: string; iat?: number; exp?: string | number } = {},
): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg })
    .setSubject('admin')
    .setIssuer(claims.iss ?? issuer)
    .setAudience(claims.aud ?? audience)
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.exp ?? '10m')
    .sign(new TextEncoder().encode(secret));
}

export async function embeddedBroker() {
  return startBroker({ port: 0, wsPort: false, host: '127.0.0.1' });
}

export interface NotifierOptions {
  mqttUrl: string;
  /** A database to keep across restarts; without it, a fresh one dropped on close. */
  databaseUrl?: string;
  baseUrls?: BaseUrls;
  clock?: Clock;
  env?: Record<string, string>;
}

/** The notifier as main.ts starts it, on a free port, with the test's peers. */
export async function launchNotifier(o: NotifierOptions): Promise<RunningNotifier> {
  const own = o.databaseUrl ? null : await freshPostgres();
  const config = parseNotifierConfig({
    MQTT_URL: o.mqttUrl,
    NOTIFIER_PORT: '0',
    HOST: '127.0.0.1',
    NOTIFIER_API_SECRET,
    DATA_DIR: '/nonexistent',
    DATABASE_URL: o.databaseUrl ?? own!.url,
    NOTIFIER_SEND_TIMEOUT_SECONDS: '3',
    // The tests' receivers are on loopback, which the notifier refuses by default.
    OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8,::1',
    ...o.env,
  });
  let notifier: RunningNotifier;
  try {
    notifier = await startNotifier({
      config,
      logger: createLogger({ service: 'notifier', level: process.env.LOG_LEVEL ?? 'silent' }),
      clock: o.clock,
      baseUrls: o.baseUrls,
    });
  } catch (err) {
    await own?.drop();
    throw err;
  }
  if (!own) return notifier;
  const close = notifier.close;
  return {
    ...notifier,
    close: async () => {
      await close();
      await own.drop();
    },
  };
}

/** A REST client with the bearer token. */
export async function client(baseUrl: string) {
  const auth = `Bearer ${await token()}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    get: (p: string) => call('GET', p),
    post: (p: string, b?: unknown) => call('POST', p, b ?? {}),
    put: (p: string, b: unknown) => call('PUT', p, b),
    del: (p: string) => call('DELETE', p),
  };
}

let seq = 0;
/** Publishes a controller event as the controller does (QoS 1, not retained). */
export async function publishEvent(
  mqttUrl: string,
  event: string,
  data: Record<string, unknown>,
  eventId = `evt-${Date.now()}-${++seq}`,
): Promise<string> {
  const c = await mqtt.connectAsync(mqttUrl, {
    clientId: `test-pub-${process.pid}-${++seq}`,
    protocolVersion: 4,
  });
  await c.publishAsync(
    `outpost/controller/main/event/${event}`,
    JSON.stringify({ event, event_id: eventId, timestamp: 1767225600, controller_id: 'main', data }),
    { qos: 1 },
  );
  await c.endAsync();
  return eventId;
}

/** Polls until fn returns a truthy value (for effects of bus messages), failing after timeoutMs. */
export async function eventually<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 5000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
